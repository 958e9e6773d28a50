//! Comma-separated values (the csv crate does the quoting).

use super::{Exporter, Table};

pub(crate) struct Csv;

impl Exporter for Csv {
    fn table(&self, t: &Table) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        // Writing to a Vec cannot fail.
        w.write_record(&t.headers).expect("write to memory");
        for row in &t.rows {
            w.write_record(row).expect("write to memory");
        }
        let bytes = w.into_inner().expect("flush to memory");
        String::from_utf8(bytes).expect("csv of UTF-8 cells is UTF-8")
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
        assert_eq!(Csv.table(&t), "id\n\"a,b\"\n");
    }
}
