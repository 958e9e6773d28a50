//! Writes a large TMX 1.4 file for bench/tmx_stream.sh: English → German
//! units of café-post sentences, each different (a counter and rotating
//! words), some with inline codes (`<bpt>`/`<ept>`, `<ph>`, `<hi>`), fast
//! (a buffered writer, no XML library).
//!
//!     cargo run --release --example gen_tmx -- OUT.tmx [MEGABYTES]   (default 1024)

use std::io::{BufWriter, Write};

const EN: [&str; 8] = [
    "Fresh cookies come out of the oven at four",
    "Try our cold coffee this weekend",
    "Sticky date loaf is back on the menu",
    "Free home delivery on weekends for orders over £20",
    "Save the date: live music on Friday at 7 p.m.",
    "Our mint tea is made with leaves from the garden",
    "Two croissants for £3.50 until 9 a.m.",
    "Follow @cafe for the daily specials #weekend",
];
const DE: [&str; 8] = [
    "Frische Kekse kommen um vier aus dem Ofen",
    "Probieren Sie dieses Wochenende unseren kalten Kaffee",
    "Klebriger Dattelkuchen ist wieder auf der Karte",
    "Kostenlose Lieferung am Wochenende ab 20 £",
    "Merken Sie sich den Termin: Livemusik am Freitag um 19 Uhr",
    "Unser Minztee wird mit Blättern aus dem Garten gemacht",
    "Zwei Croissants für 3,50 £ bis 9 Uhr",
    "Folgen Sie @cafe für die Tagesangebote #weekend",
];

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: gen_tmx OUT.tmx [MEGABYTES]");
        std::process::exit(2);
    };
    let megabytes: u64 = args.get(1).and_then(|m| m.parse().ok()).unwrap_or(1024);
    let limit = megabytes << 20;
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tmx version=\"1.4\">\n\
                <header creationtool=\"gen_tmx\" creationtoolversion=\"1\" segtype=\"sentence\" \
                o-tmf=\"glossa\" adminlang=\"en\" srclang=\"en-GB\" datatype=\"plaintext\"/>\n<body>\n";
    w.write_all(head.as_bytes())?;
    let mut written = head.len() as u64;
    let mut n: u64 = 0;
    let mut unit = String::with_capacity(1024);
    while written < limit {
        n += 1;
        let i = (n % 8) as usize;
        let j = ((n / 8) % 8) as usize;
        unit.clear();
        let (en, de) = match n % 4 {
            0 => (
                format!(
                    "{} <bpt i=\"1\">&lt;b&gt;</bpt>no. {n}<ept i=\"1\">&lt;/b&gt;</ept>. {}.",
                    EN[i], EN[j]
                ),
                format!(
                    "{} <bpt i=\"1\">&lt;b&gt;</bpt>Nr. {n}<ept i=\"1\">&lt;/b&gt;</ept>. {}.",
                    DE[i], DE[j]
                ),
            ),
            1 => (
                format!("{} (no. {n})<ph x=\"1\">&lt;br/&gt;</ph>", EN[i]),
                format!("{} (Nr. {n})<ph x=\"1\">&lt;br/&gt;</ph>", DE[i]),
            ),
            2 => (
                format!("<hi type=\"b\">{}</hi> &amp; more, no. {n}.", EN[i]),
                format!("<hi type=\"b\">{}</hi> &amp; mehr, Nr. {n}.", DE[i]),
            ),
            _ => (
                format!("{}, no. {n}.", EN[i]),
                format!("{}, Nr. {n}.", DE[i]),
            ),
        };
        unit.push_str(&format!(
            "<tu tuid=\"{n}\" creationdate=\"20260101T000000Z\">\n  <prop type=\"x-source\">bench</prop>\n  \
             <tuv xml:lang=\"en-GB\">\n    <seg>{en}</seg>\n  </tuv>\n  \
             <tuv xml:lang=\"de-DE\">\n    <seg>{de}</seg>\n  </tuv>\n</tu>\n"
        ));
        w.write_all(unit.as_bytes())?;
        written += unit.len() as u64;
    }
    w.write_all(b"</body>\n</tmx>\n")?;
    w.flush()?;
    eprintln!("{out}: {n} units, {} MiB", (written + 15) >> 20);
    Ok(())
}
