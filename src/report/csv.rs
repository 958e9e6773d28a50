//! Comma-separated values (the csv crate does the quoting). Several tables
//! are separated by a blank line.

use super::{Exporter, Table};

pub struct Csv;

impl Exporter for Csv {
    fn render(&self, tables: &[Table]) -> String {
        let mut out = Vec::new();
        for (i, t) in tables.iter().enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            let mut w = csv::Writer::from_writer(Vec::new());
            // Writing to a Vec cannot fail.
            w.write_record(&t.headers).expect("write to memory");
            for row in &t.rows {
                w.write_record(row).expect("write to memory");
            }
            out.extend(w.into_inner().expect("flush to memory"));
        }
        String::from_utf8(out).expect("csv of UTF-8 cells is UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::super::Align;
    use super::*;

    #[test]
    fn quotes_cells_with_commas() {
        let mut t = Table::new(None, &[("id", Align::Left)]);
        t.push(vec!["a,b".into()]);
        assert_eq!(Csv.render(&[t]), "id\n\"a,b\"\n");
    }
}
