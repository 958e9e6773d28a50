//! Invariants: what a translation must carry over from its English source
//! unchanged — numbers, currency amounts, times, dates, URLs, e-mail
//! addresses, @handles, #hashtags, emoji and placeholders
//! (docs/formats.md, "Invariants").
//!
//! [`check`] finds each of them in the source, then looks for it in the
//! output in the forms the rules accept ("3.50" as "3,50" or "٣٫٥٠", "9
//! a.m." as "09:00" or "9時"), and reports each one missing or changed
//! with its place in the source (and, for a changed one, its place in the
//! output). Both texts are read once by precompiled regexes; matching is
//! by hash lookups, so the cost grows with the texts' lengths.

use regex::Regex;
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::LazyLock;

/// What kind of invariant an [`Issue`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Number,
    Amount,
    Time,
    Date,
    Url,
    Email,
    Handle,
    Hashtag,
    Emoji,
    Placeholder,
}

impl Kind {
    /// The kind's name as in JSON ("number", "amount", ...).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Number => "number",
            Kind::Amount => "amount",
            Kind::Time => "time",
            Kind::Date => "date",
            Kind::Url => "url",
            Kind::Email => "email",
            Kind::Handle => "handle",
            Kind::Hashtag => "hashtag",
            Kind::Emoji => "emoji",
            Kind::Placeholder => "placeholder",
        }
    }
}

/// What is wrong with an invariant of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Not in the output in any accepted form.
    Missing,
    /// Not in the output; something of the same kind that the source does
    /// not have stands where it probably went: `found`, at bytes `at` of
    /// the output.
    Changed { found: String, at: Range<usize> },
}

/// One invariant of the source missing or changed in the output.
///
/// JSON: `{"kind": "amount", "text": "£3.50", "at": [5, 11], "problem":
/// "changed", "found": "£3.05", "found_at": [7, 13]}`; a missing one has
/// `"problem": "missing"` and no `found`/`found_at`. Ranges are byte
/// offsets `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "IssueJson", try_from = "IssueJson")]
pub struct Issue {
    pub kind: Kind,
    /// As written in the source.
    pub text: String,
    /// Bytes of the source.
    pub at: Range<usize>,
    pub problem: Problem,
}

impl Issue {
    /// One line for a person: `amount "£3.50" (source bytes 5–11) changed
    /// to "£3.05" (output bytes 7–13)`.
    pub fn describe(&self) -> String {
        let head = format!(
            "{} \"{}\" (source bytes {}–{})",
            self.kind.name(),
            self.text,
            self.at.start,
            self.at.end
        );
        match &self.problem {
            Problem::Missing => format!("{head} missing from the output"),
            Problem::Changed { found, at } => format!(
                "{head} changed to \"{found}\" (output bytes {}–{})",
                at.start, at.end
            ),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct IssueJson {
    kind: Kind,
    text: String,
    at: [usize; 2],
    problem: ProblemName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    found: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    found_at: Option<[usize; 2]>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ProblemName {
    Missing,
    Changed,
}

impl From<Issue> for IssueJson {
    fn from(i: Issue) -> IssueJson {
        let (problem, found, found_at) = match i.problem {
            Problem::Missing => (ProblemName::Missing, None, None),
            Problem::Changed { found, at } => {
                (ProblemName::Changed, Some(found), Some([at.start, at.end]))
            }
        };
        IssueJson {
            kind: i.kind,
            text: i.text,
            at: [i.at.start, i.at.end],
            problem,
            found,
            found_at,
        }
    }
}

impl TryFrom<IssueJson> for Issue {
    type Error = String;
    fn try_from(j: IssueJson) -> Result<Issue, String> {
        let problem = match (j.problem, j.found, j.found_at) {
            (ProblemName::Missing, _, _) => Problem::Missing,
            (ProblemName::Changed, Some(found), Some([s, e])) => {
                Problem::Changed { found, at: s..e }
            }
            (ProblemName::Changed, _, _) => {
                return Err("a changed invariant needs `found` and `found_at`".into())
            }
        };
        Ok(Issue {
            kind: j.kind,
            text: j.text,
            at: j.at[0]..j.at[1],
            problem,
        })
    }
}

/// What a failed invariant does (`--invariants off|warn|fail`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Not checked.
    Off,
    /// Reported, the post still counts by its terms.
    #[default]
    Warn,
    /// Reported, and the post fails (`translate` exits 1).
    Fail,
}

impl Mode {
    pub const NAMES: [&'static str; 3] = ["off", "warn", "fail"];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Warn => "warn",
            Mode::Fail => "fail",
        }
    }

    /// The mode is the default (`warn`): left out of saved settings.
    pub(crate) fn is_default(&self) -> bool {
        *self == Mode::Warn
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "off" => Ok(Mode::Off),
            "warn" => Ok(Mode::Warn),
            "fail" => Ok(Mode::Fail),
            _ => Err(format!("`{s}` is no invariants mode: off, warn or fail")),
        }
    }
}

/// Every invariant of `source` (English) missing or changed in `output`,
/// in source order. `target_lang` is the output's language code (`th`
/// accepts Buddhist-era years: 2026 as 2569).
pub fn check(source: &str, output: &str, target_lang: &str) -> Vec<Issue> {
    let src = Normal::new(source);
    let out = Normal::new(output);
    let items = extract(&src.text, &SOURCE_LANGS);
    if items.is_empty() {
        return Vec::new();
    }
    let lang = target_lang.to_ascii_lowercase().replace('_', "-");
    let primary = lang.split('-').next().unwrap_or_default();
    let thai = primary == "th";
    // An output may keep the source's language in a URL or give its own.
    let mut langs = vec![lang.as_str(), primary];
    langs.extend(SOURCE_LANGS);
    let mut output = Output::new(&out.text, thai, &langs);
    let mut found = vec![false; items.len()];
    // The most structured kinds take their digits first.
    for pass in [
        Pass::Exact,
        Pass::Date,
        Pass::Time,
        Pass::Amount,
        Pass::Number,
    ] {
        for (i, item) in items.iter().enumerate() {
            if item.pass() == pass {
                found[i] = output.take(item);
            }
        }
    }
    // What is left in the output, paired in order with what is missing.
    let mut issues = Vec::new();
    for (item, _) in items.iter().zip(&found).filter(|(_, f)| !**f) {
        let problem = match output.leftover(item) {
            Some(range) => Problem::Changed {
                found: output_text(&out, range.clone()),
                at: out.original_range(range),
            },
            None => Problem::Missing,
        };
        let at = src.original_range(item.range.clone());
        issues.push(Issue {
            kind: item.kind,
            text: source[at.clone()].to_string(),
            at,
            problem,
        });
    }
    issues
}

fn output_text(out: &Normal, range: Range<usize>) -> String {
    out.original[out.original_range(range)].to_string()
}

/// A text with digits of every script made ASCII, full-width forms made
/// ASCII and the various spaces made one, remembering where each byte came
/// from.
struct Normal<'a> {
    original: &'a str,
    text: String,
    /// For each byte of `text` (and its end): the original byte offset of
    /// the character it came from.
    origin: Vec<usize>,
}

/// The zero of each run of decimal digits that counts as digits: Arabic-
/// Indic, Persian, N'Ko, Devanagari, Bengali, Gurmukhi, Gujarati, Oriya,
/// Tamil, Telugu, Kannada, Malayalam, Sinhala, Thai, Lao, Tibetan, Myanmar
/// (and Shan), Khmer, Mongolian, Limbu, New Tai Lue, Tai Tham (2),
/// Balinese, Sundanese, Lepcha, Ol Chiki, Vai, Saurashtra, Kayah Li,
/// Javanese, Myanmar Tai Laing, Cham, Meetei Mayek, full-width.
const DIGIT_ZEROS: [u32; 36] = [
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
];

fn normal_char(c: char) -> char {
    let u = c as u32;
    if u < 0x80 {
        return c;
    }
    for zero in DIGIT_ZEROS {
        if (zero..zero + 10).contains(&u) {
            return char::from(b'0' + (u - zero) as u8);
        }
    }
    match c {
        // Arabic decimal and thousands separators.
        '\u{066B}' => '.',
        '\u{066C}' => ',',
        // No-break, thin, narrow no-break, figure and other fixed spaces.
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        '\u{2019}' | '\u{02BC}' => '\'',
        '\u{2212}' => '-',
        '\u{FFE0}' => '¢',
        '\u{FFE1}' => '£',
        '\u{FFE5}' => '¥',
        '\u{FFE6}' => '₩',
        // Full-width ASCII.
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

impl<'a> Normal<'a> {
    fn new(original: &'a str) -> Normal<'a> {
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len() + 1);
        for (at, c) in original.char_indices() {
            text.push(normal_char(c));
            origin.resize(text.len(), at);
        }
        origin.push(original.len());
        Normal {
            original,
            text,
            origin,
        }
    }

    fn original_range(&self, r: Range<usize>) -> Range<usize> {
        self.origin[r.start]..self.origin[r.end]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Exact,
    Date,
    Time,
    Amount,
    Number,
}

/// A number as compared: integer digits without leading zeros, fraction
/// digits without trailing zeros ("03.50" → "3", "5").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Value(String);

impl Value {
    fn new(int: &str, frac: &str) -> Value {
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let int = if int.is_empty() { "0" } else { int };
        if frac.is_empty() {
            Value(int.to_string())
        } else {
            Value(format!("{int}.{frac}"))
        }
    }

    fn int(n: u64) -> Value {
        Value(n.to_string())
    }
}

#[derive(Debug, Clone)]
enum What {
    /// Compared by key (URLs, e-mails, handles, hashtags, emoji,
    /// placeholders).
    Exact(String),
    Number(Value),
    /// Dotted digits ("1.2.3", "192.168.0.1"): the same digits and dots.
    Dotted(String),
    Amount(Value, &'static str),
    /// Accepted hours (24-hour clock and 12-hour clock) and the minute.
    Time(Vec<u64>, u64),
    /// Day, month and year numbers as written (years also as 2 or 4
    /// digits).
    Date(Vec<DatePart>),
}

#[derive(Debug, Clone, Copy)]
enum DatePart {
    Plain(u64),
    Year(u64),
}

#[derive(Debug, Clone)]
struct Item {
    kind: Kind,
    /// Bytes of the normalised text.
    range: Range<usize>,
    what: What,
}

impl Item {
    fn pass(&self) -> Pass {
        match self.what {
            What::Exact(_) => Pass::Exact,
            What::Date(_) => Pass::Date,
            What::Time(..) => Pass::Time,
            What::Amount(..) => Pass::Amount,
            What::Number(_) | What::Dotted(_) => Pass::Number,
        }
    }
}

const CURRENCY_CODES: &str = "USD|EUR|GBP|JPY|CNY|RMB|INR|AUD|CAD|NZD|HKD|SGD|CHF|KRW|RUB|TRY|THB|ILS|NGN|PHP|VND|PLN|BRL|MXN|ZAR|SEK|NOK|DKK|IDR|MYR|PKR|BDT|EGP|AED|SAR|UAH|KES";
const CURRENCY_SYMBOLS: &str = "£€$¥₹₩₽₺฿₪₦₱₫₴₨¢";

/// The currency a symbol, code or local sign names; the dollars are one
/// (a "$" says no more), yen and yuan are one (both are "¥").
fn currency(mark: &str) -> Option<&'static str> {
    let m = mark.trim_end_matches('.');
    Some(match m {
        "£" | "GBP" => "GBP",
        "€" | "EUR" => "EUR",
        "$" | "US$" | "A$" | "C$" | "NZ$" | "HK$" | "S$" | "USD" | "AUD" | "CAD" | "NZD"
        | "HKD" | "SGD" => "$",
        "¥" | "JPY" | "CNY" | "RMB" | "円" | "元" => "¥",
        "₹" | "₨" | "INR" | "Rs" | "रु" | "रू" => "INR",
        "₩" | "KRW" | "원" => "KRW",
        "₽" | "RUB" | "руб" => "RUB",
        "₺" | "TRY" | "TL" => "TRY",
        "฿" | "THB" | "บาท" => "THB",
        "₪" | "ILS" => "ILS",
        "₦" | "NGN" => "NGN",
        "₱" | "PHP" => "PHP",
        "₫" | "VND" => "VND",
        "₴" | "UAH" => "UAH",
        "¢" => "¢",
        "R$" | "BRL" => "BRL",
        "zł" | "PLN" => "PLN",
        code if code.len() == 3 && CURRENCY_CODES.split('|').any(|c| c == code) => {
            CURRENCY_CODES.split('|').find(|c| *c == code)?
        }
        _ => return None,
    })
}

const MONTH: &str = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b\.?";

/// Every kind in one regex, in the order that decides where two could
/// start at the same place.
static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    let sym = format!("[{CURRENCY_SYMBOLS}]|(?:US|A|C|NZ|HK|S|R)\\$");
    let code = format!("\\b(?:{CURRENCY_CODES})\\b");
    let num = r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?";
    let pattern = [
        r"(?P<url>(?i:https?://|www\.)[A-Za-z0-9\[][A-Za-z0-9\-._~:/?#\[\]@!$&()*+,;=%]*)".to_string(),
        r"(?P<email>[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})"
            .to_string(),
        r"(?P<percent>%%)".to_string(),
        concat!(
            r"(?P<placeholder>\{\{[^{}]*\}\}|\$\{[^{}]+\}",
            r"|%\([^()\s]+\)[#0\-+]*[0-9]*(?:\.[0-9]+)?[diouxXeEfFgGcrsab]",
            r"|%[0-9]+\$[#0\-+]*[0-9]*(?:\.[0-9]+)?[a-zA-Z@]",
            r"|%[#0\-+]*[0-9]*(?:\.[0-9]+)?(?:ll|l|h|z)?[sdifuxXeEgGcp@]",
            r"|\{[A-Za-z0-9_]*(?:[.\[][^{}\s]*)?(?:![rsa])?(?::[^{}]*)?\})"
        )
        .to_string(),
        r"(?P<handle>@[A-Za-z0-9_]+)".to_string(),
        r"(?P<hashtag>#[\p{L}\p{M}\p{N}_]*\p{L}[\p{L}\p{M}\p{N}_]*)".to_string(),
        concat!(
            r"(?P<emoji>\p{Regional_Indicator}{2}|[0-9#*]\x{FE0F}?\x{20E3}",
            r"|\p{Extended_Pictographic}[\x{FE0E}\x{FE0F}]?\p{Emoji_Modifier}?",
            r"(?:\x{200D}\p{Extended_Pictographic}[\x{FE0E}\x{FE0F}]?\p{Emoji_Modifier}?)*)"
        )
        .to_string(),
        format!(
            concat!(
                r"(?P<date>[0-9]{{4}}-[0-9]{{1,2}}-[0-9]{{1,2}}\b",
                r"|[0-9]{{1,2}}/[0-9]{{1,2}}/[0-9]{{2,4}}\b|[0-9]{{1,2}}\.[0-9]{{1,2}}\.[0-9]{{2,4}}\b|[0-9]{{1,2}}-[0-9]{{1,2}}-[0-9]{{2,4}}\b",
                r"|[0-9]{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{m}(?:,?\s+[0-9]{{4}}\b)?",
                r"|{m}\s+[0-9]{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+[0-9]{{4}}\b)?",
                r"|{m}\s+[0-9]{{4}}\b)"
            ),
            m = MONTH
        ),
        r"(?P<time>[0-9]{1,2}(?::[0-9]{2})?\s?(?i:[ap]\.\s?m\.?|[ap]m\b)|[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?\b)"
            .to_string(),
        format!(
            r"(?P<amount>(?:{sym}|{code}\s?)\s?(?:{num})|(?:{num})\s?(?:{sym}|{code}))"
        ),
        format!(r"(?P<number>[0-9]+(?:\.[0-9]+){{2,}}|{num})"),
    ]
    .join("|");
    Regex::new(&pattern).expect("the invariants regex compiles")
});

static TIME_PARTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([0-9]{1,2})(?::([0-9]{2}))?(?::[0-9]{2})?\s?(?i:([ap])\.?\s?m\.?)?")
        .expect("the time regex compiles")
});

static DIGITS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[0-9]+").expect("the digits regex compiles"));

static MARK_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?:[{CURRENCY_SYMBOLS}]|(?:US|A|C|NZ|HK|S|R)\$|\b(?:{CURRENCY_CODES}|Rs\.?|TL)|円|元|원|บาท|руб\.?|zł|रु|रू) ?$"
    ))
    .expect("the currency regex compiles")
});

static MARK_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^ ?(?:[{CURRENCY_SYMBOLS}]|(?:{CURRENCY_CODES}|Rs\.?|TL)\b|円|元|원|บาท|руб|zł|रु|रू)"
    ))
    .expect("the currency regex compiles")
});

/// The source's language as a URL path segment ("/en/docs").
const SOURCE_LANGS: [&str; 3] = ["en", "en-us", "en-gb"];

/// Every invariant of a normalised text, in order; `langs` are the text's
/// language codes, as a URL path segment may name them.
fn extract(text: &str, langs: &[&str]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let Some(caps) = TOKENS.captures_at(text, from) else {
            break;
        };
        let whole = caps.get(0).expect("group 0 always matches");
        let before = text[..whole.start()].chars().next_back();
        let (found, next) = classify(text, &caps, before, langs);
        items.extend(found);
        from = next.max(whole.start() + 1);
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    items
}

fn glued(before: Option<char>) -> bool {
    before.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The items a match stands for and where to look on.
fn classify(
    text: &str,
    caps: &regex::Captures,
    before: Option<char>,
    langs: &[&str],
) -> (Vec<Item>, usize) {
    let whole = caps.get(0).expect("group 0 always matches");
    let one = |kind, range: Range<usize>, what| {
        let end = range.end;
        (vec![Item { kind, range, what }], end)
    };
    // Not what it looked like here: look again one character further.
    let skip_one = (Vec::new(), whole.start() + 1);
    // Digits that are no date or time after all: each run a number.
    let numbers = |m: regex::Match| {
        let items = DIGITS
            .find_iter(m.as_str())
            .map(|d| Item {
                kind: Kind::Number,
                range: m.start() + d.start()..m.start() + d.end(),
                what: What::Number(Value::new(d.as_str(), "")),
            })
            .collect();
        (items, m.end())
    };
    if let Some(m) = caps.name("url") {
        let end = m.start() + url_end(m.as_str());
        let url = &text[m.start()..end];
        return one(Kind::Url, m.start()..end, What::Exact(url_key(url, langs)));
    }
    if let Some(m) = caps.name("email") {
        return one(
            Kind::Email,
            m.range(),
            What::Exact(m.as_str().to_lowercase()),
        );
    }
    if caps.name("percent").is_some() {
        return (Vec::new(), whole.end());
    }
    if let Some(m) = caps.name("placeholder") {
        // "50%d" is no placeholder.
        if m.as_str().starts_with('%') && before.is_some_and(|c| c.is_ascii_digit()) {
            return skip_one;
        }
        return one(
            Kind::Placeholder,
            m.range(),
            What::Exact(m.as_str().to_string()),
        );
    }
    if let Some(m) = caps.name("handle") {
        if glued(before) || matches!(before, Some('.' | '@')) {
            return (Vec::new(), m.end());
        }
        return one(
            Kind::Handle,
            m.range(),
            What::Exact(m.as_str().to_ascii_lowercase()),
        );
    }
    if let Some(m) = caps.name("hashtag") {
        if glued(before) || matches!(before, Some('&' | '#')) {
            return (Vec::new(), m.end());
        }
        return one(
            Kind::Hashtag,
            m.range(),
            What::Exact(m.as_str().to_lowercase()),
        );
    }
    if let Some(m) = caps.name("emoji") {
        // ©, ® and ™ are text symbols unless written as emoji.
        if matches!(m.as_str(), "©" | "®" | "™" | "‼" | "⁉" | "↔" | "↕") {
            return (Vec::new(), m.end());
        }
        return one(Kind::Emoji, m.range(), What::Exact(emoji_key(m.as_str())));
    }
    // Digits glued to a letter are part of a name: "IPv4", "H2O", "mp3".
    let starts_glued = |m: regex::Match| {
        let first = m.as_str().chars().next();
        first.is_some_and(|c| c.is_ascii_digit()) && glued(before)
    };
    if starts_glued(whole) {
        let mut end = whole.end();
        // The whole name: "v1.2.3" leaves no "2.3".
        let rest = &text[end..];
        end += rest
            .find(|c: char| !(c.is_alphanumeric() || c == '.' || c == ',' || c == '_'))
            .unwrap_or(rest.len());
        return (Vec::new(), end);
    }
    if let Some(m) = caps.name("date") {
        return match date_parts(m.as_str()) {
            Some(parts) => one(Kind::Date, m.range(), What::Date(parts)),
            None => numbers(m),
        };
    }
    if let Some(m) = caps.name("time") {
        return match time_parts(m.as_str()) {
            Some((hours, minute)) => one(Kind::Time, m.range(), What::Time(hours, minute)),
            None => numbers(m),
        };
    }
    if let Some(m) = caps.name("amount") {
        let s = m.as_str();
        let first = s.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
        let last = s.rfind(|c: char| c.is_ascii_digit()).unwrap_or(0);
        let mark = format!("{}{}", s[..first].trim(), s[last + 1..].trim());
        let value = english_value(&s[first..=last]);
        return match currency(&mark) {
            Some(cur) => one(Kind::Amount, m.range(), What::Amount(value, cur)),
            None => one(
                Kind::Number,
                m.start() + first..m.start() + last + 1,
                What::Number(value),
            ),
        };
    }
    if let Some(m) = caps.name("number") {
        let s = m.as_str();
        let what = if s.matches('.').count() >= 2 {
            What::Dotted(s.to_string())
        } else {
            What::Number(english_value(s))
        };
        return one(Kind::Number, m.range(), what);
    }
    skip_one
}

/// An English number: "," groups, "." marks the fraction.
fn english_value(s: &str) -> Value {
    let s: String = s.chars().filter(|&c| c != ',').collect();
    match s.split_once('.') {
        Some((int, frac)) => Value::new(int, frac),
        None => Value::new(&s, ""),
    }
}

/// Where a URL found by the regex really ends: trailing sentence
/// punctuation and an unbalanced ")" are not part of it.
fn url_end(url: &str) -> usize {
    let mut end = url.len();
    loop {
        let s = &url[..end];
        let Some(last) = s.chars().next_back() else {
            return end;
        };
        let strip = match last {
            '.' | ',' | ';' | ':' | '!' | '?' => true,
            ')' => s.matches('(').count() < s.matches(')').count(),
            ']' => s.matches('[').count() < s.matches(']').count(),
            _ => false,
        };
        if !strip {
            return end;
        }
        end -= 1;
    }
}

/// A URL as compared: scheme and host without case, the rest exact, but
/// for a path segment naming the text's language ("/en/" in the source,
/// "/fr/" in a French output: sites localise their links so).
fn url_key(url: &str, langs: &[&str]) -> String {
    let rest_at = match url.find("://") {
        Some(i) => i + 3,
        None => 0,
    };
    let host_end = url[rest_at..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| rest_at + i);
    let (path, rest) = url[host_end..].split_at(
        url[host_end..]
            .find(['?', '#'])
            .unwrap_or(url.len() - host_end),
    );
    let path: Vec<&str> = path
        .split('/')
        .map(|seg| {
            let code = seg.to_ascii_lowercase().replace('_', "-");
            if !seg.is_empty() && langs.contains(&code.as_str()) {
                "{lang}"
            } else {
                seg
            }
        })
        .collect();
    format!(
        "{}{}{rest}",
        url[..host_end].to_ascii_lowercase(),
        path.join("/")
    )
}

/// A placeholder that names its value (`%(name)s`, `{name}`, `{0}`,
/// `%1$s`, `{{x}}`, `${x}`), unlike `%s` and `{}`, which take the next
/// argument each time.
fn named(placeholder: &str) -> bool {
    let p = placeholder.as_bytes();
    match p {
        [b'%', b'(', ..] => true,
        [b'%', rest @ ..] => {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            digits > 0 && rest.get(digits) == Some(&b'$')
        }
        [b'{', b'}'] | [b'{', b':', ..] | [b'{', b'!', ..] => false,
        _ => true,
    }
}

/// An emoji as compared: without variation selectors.
fn emoji_key(s: &str) -> String {
    s.chars()
        .filter(|&c| c != '\u{FE0F}' && c != '\u{FE0E}')
        .collect()
}

fn time_parts(s: &str) -> Option<(Vec<u64>, u64)> {
    let caps = TIME_PARTS.captures(s)?;
    let hour: u64 = caps.get(1)?.as_str().parse().ok()?;
    let minute: u64 = caps.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
    if minute > 59 {
        return None;
    }
    let hours = match caps.get(3).map(|m| m.as_str().to_ascii_lowercase()) {
        Some(half) => {
            if hour == 0 || hour > 12 {
                return None;
            }
            match (half.as_str(), hour) {
                ("a", 12) => vec![0, 12, 24],
                ("a", h) => vec![h],
                (_, 12) => vec![12],
                (_, h) => vec![h + 12, h],
            }
        }
        None if hour > 24 => return None,
        None if hour > 12 => vec![hour, hour - 12],
        None if hour == 0 => vec![0, 12, 24],
        None => vec![hour],
    };
    Some((hours, minute))
}

fn date_parts(s: &str) -> Option<Vec<DatePart>> {
    let numbers: Vec<&str> = DIGITS.find_iter(s).map(|m| m.as_str()).collect();
    let mut parts = Vec::new();
    let mut days = 0;
    for n in &numbers {
        let v: u64 = n.parse().ok()?;
        if n.len() == 4 || (numbers.len() == 3 && n == numbers.last()?) {
            parts.push(DatePart::Year(v));
        } else {
            if v == 0 || v > 31 {
                return None;
            }
            days += 1;
            parts.push(DatePart::Plain(v));
        }
    }
    // A numeric date has a day and a month of 1–31, and one of them ≤ 12.
    if numbers.len() == 3 && days == 2 {
        let small = parts
            .iter()
            .filter(|p| matches!(p, DatePart::Plain(v) if *v <= 12))
            .count();
        if small == 0 {
            return None;
        }
    }
    Some(parts)
}

/// A run of digits of the output.
#[derive(Debug, Clone)]
struct Piece {
    range: Range<usize>,
    value: Option<u64>,
    /// Exactly two digits (a minute).
    two: bool,
}

/// The output, read for matching.
struct Output<'a> {
    text: &'a str,
    thai: bool,
    /// Exact kinds: key → places (in text order), and whether taken.
    exact: HashMap<(Kind, String), Vec<usize>>,
    exact_items: Vec<(Kind, String, Range<usize>, bool)>,
    pieces: Vec<Piece>,
    used: Vec<bool>,
    /// Pieces joined by single "." "," "'" or " ": (first, last) index.
    whole: HashMap<Value, VecDeque<(usize, usize)>>,
    parts: HashMap<Value, VecDeque<(usize, usize)>>,
    dotted: HashMap<String, Vec<(usize, usize)>>,
    by_value: HashMap<u64, VecDeque<usize>>,
    /// Maximal runs: (first, last) piece index, in text order.
    runs: Vec<(usize, usize)>,
    /// Where [`Output::leftover`] looks on: runs before it are taken, and
    /// per kind, exact items before it are taken or of another kind.
    run_cursor: usize,
    exact_cursor: [usize; 10],
}

/// The most pieces one number is read from ("1,000,000,000,000,000").
const MAX_RUN: usize = 8;

impl<'a> Output<'a> {
    fn new(text: &'a str, thai: bool, langs: &[&str]) -> Output<'a> {
        let mut exact: HashMap<(Kind, String), Vec<usize>> = HashMap::default();
        let mut exact_items = Vec::new();
        let mut masked: Vec<Range<usize>> = Vec::new();
        for item in extract(text, langs) {
            if let What::Exact(key) = item.what {
                exact
                    .entry((item.kind, key.clone()))
                    .or_default()
                    .push(exact_items.len());
                masked.push(item.range.clone());
                exact_items.push((item.kind, key, item.range, false));
            }
        }
        let mut pieces = Vec::new();
        let mut mask = masked.iter().peekable();
        for m in DIGITS.find_iter(text) {
            while mask.peek().is_some_and(|r| r.end <= m.start()) {
                mask.next();
            }
            if mask.peek().is_some_and(|r| r.start < m.end()) {
                continue;
            }
            let s = m.as_str();
            pieces.push(Piece {
                range: m.range(),
                value: s.parse().ok(),
                two: s.len() == 2,
            });
        }
        let mut out = Output {
            text,
            thai,
            exact,
            exact_items,
            used: vec![false; pieces.len()],
            pieces,
            whole: HashMap::default(),
            parts: HashMap::default(),
            dotted: HashMap::default(),
            by_value: HashMap::default(),
            runs: Vec::new(),
            run_cursor: 0,
            exact_cursor: [0; 10],
        };
        out.index();
        out
    }

    /// The separator between two pieces, when they are one number's.
    fn separator(&self, a: usize, b: usize) -> Option<char> {
        let gap = &self.text[self.pieces[a].range.end..self.pieces[b].range.start];
        let mut chars = gap.chars();
        match (chars.next(), chars.next()) {
            (Some(c @ ('.' | ',' | '\'' | ' ')), None) => Some(c),
            _ => None,
        }
    }

    fn index(&mut self) {
        for (i, p) in self.pieces.iter().enumerate() {
            if let Some(v) = p.value {
                self.by_value.entry(v).or_default().push_back(i);
            }
        }
        let mut start = 0;
        while start < self.pieces.len() {
            let mut end = start;
            while end + 1 < self.pieces.len() && self.separator(end, end + 1).is_some() {
                end += 1;
            }
            // A space joins only digit groups of three ("1 000").
            let mut first = start;
            for i in start..=end {
                let breaks = i == end
                    || (self.separator(i, i + 1) == Some(' ')
                        && self.text[self.pieces[i + 1].range.clone()].len() != 3);
                if breaks {
                    self.add_run(first, i);
                    first = i + 1;
                }
            }
            start = end + 1;
        }
    }

    fn add_run(&mut self, first: usize, last: usize) {
        self.runs.push((first, last));
        let last = last.min(first + 4 * MAX_RUN);
        for a in first..=last {
            for b in a..=last.min(a + MAX_RUN - 1) {
                let maximal = a == first && b == last;
                for v in self.values(a, b) {
                    let map = if maximal {
                        &mut self.whole
                    } else {
                        &mut self.parts
                    };
                    map.entry(v).or_default().push_back((a, b));
                }
                if b >= a + 2 && (a..b).all(|i| self.separator(i, i + 1) == Some('.')) {
                    let s =
                        self.text[self.pieces[a].range.start..self.pieces[b].range.end].to_string();
                    self.dotted.entry(s).or_default().push((a, b));
                }
            }
        }
    }

    /// What the pieces `a..=b` can mean as one number: all separators
    /// grouping, or the last one the decimal mark.
    fn values(&self, a: usize, b: usize) -> Vec<Value> {
        let digits = |i: usize| &self.text[self.pieces[i].range.clone()];
        if a == b {
            return vec![Value::new(digits(a), "")];
        }
        let seps: Vec<char> = (a..b).filter_map(|i| self.separator(i, i + 1)).collect();
        let mut values = Vec::new();
        // All grouping: one mark, then groups of 3 (or Indian groups of 2
        // before a last group of 3).
        let groups_ok = |from: usize, to: usize, seps: &[char]| {
            if from == to {
                return true;
            }
            let same = seps.windows(2).all(|w| w[0] == w[1]);
            let first = digits(from).len();
            let last = digits(to).len();
            let middle: Vec<usize> = (from + 1..to).map(|i| digits(i).len()).collect();
            same && (1..=3).contains(&first)
                && last == 3
                && (middle.iter().all(|&l| l == 3) || middle.iter().all(|&l| l == 2))
        };
        if groups_ok(a, b, &seps) {
            let int: String = (a..=b).map(digits).collect();
            values.push(Value::new(&int, ""));
        }
        let decimal = *seps.last().unwrap_or(&' ');
        if decimal != ' ' && groups_ok(a, b - 1, &seps[..seps.len() - 1]) {
            let grouping_differs = seps[..seps.len() - 1].iter().all(|&c| c != decimal);
            if grouping_differs {
                let int: String = (a..b).map(digits).collect();
                values.push(Value::new(&int, digits(b)));
            }
        }
        values
    }

    fn free(&self, (a, b): (usize, usize)) -> bool {
        (a..=b).all(|i| !self.used[i])
    }

    fn take_span(&mut self, (a, b): (usize, usize)) {
        for i in a..=b {
            self.used[i] = true;
        }
    }

    /// The first free span of a value: whole numbers before parts of one.
    /// Drop the spans of `v` and the pieces of `values` that are taken
    /// from the front of their lists (a taken piece is never freed), so
    /// that many equal numbers cost a pass, not a pass each.
    fn prune(&mut self, v: Option<&Value>, values: &[u64]) {
        let used = &self.used;
        let free = |&(a, b): &(usize, usize)| (a..=b).all(|i| !used[i]);
        if let Some(v) = v {
            for map in [&mut self.whole, &mut self.parts] {
                if let Some(list) = map.get_mut(v) {
                    while list.front().is_some_and(|s| !free(s)) {
                        list.pop_front();
                    }
                }
            }
        }
        for n in values {
            if let Some(list) = self.by_value.get_mut(n) {
                while list.front().is_some_and(|&i| used[i]) {
                    list.pop_front();
                }
            }
        }
    }

    fn span_of(
        &self,
        v: &Value,
        accept: impl Fn(&Self, (usize, usize)) -> bool,
    ) -> Option<(usize, usize)> {
        [&self.whole, &self.parts]
            .into_iter()
            .filter_map(|map| map.get(v))
            .flatten()
            .copied()
            .find(|&s| self.free(s) && accept(self, s))
    }

    /// The values a source number may take here (a year also in the
    /// Buddhist era for Thai).
    fn alternatives(&self, v: &Value) -> Vec<Value> {
        let mut all = vec![v.clone()];
        if let (true, Ok(year)) = (self.thai, v.0.parse::<u64>()) {
            if (1800..=2200).contains(&year) {
                all.push(Value::int(year + 543));
            }
        }
        all
    }

    /// Find an item in the output and mark what it used there.
    fn take(&mut self, item: &Item) -> bool {
        match &item.what {
            What::Exact(key) => self.take_exact(item.kind, key),
            What::Number(v) => {
                for v in self.alternatives(v) {
                    self.prune(Some(&v), &[]);
                    if let Some(s) = self.span_of(&v, |_, _| true) {
                        self.take_span(s);
                        return true;
                    }
                }
                false
            }
            What::Dotted(s) => {
                let found = self
                    .dotted
                    .get(s)
                    .and_then(|spans| spans.iter().copied().find(|&sp| self.free(sp)));
                found.map(|s| self.take_span(s)).is_some()
            }
            What::Amount(v, cur) => {
                self.prune(Some(v), &[]);
                let same = self.span_of(v, |o, s| o.mark(s) == Some(cur));
                let unmarked = || self.span_of(v, |o, s| o.mark(s).is_none());
                match same.or_else(unmarked) {
                    Some(s) => {
                        self.take_span(s);
                        true
                    }
                    None => false,
                }
            }
            What::Time(hours, minute) => self.take_time(hours, *minute),
            What::Date(parts) => self.take_date(parts),
        }
    }

    fn take_exact(&mut self, kind: Kind, key: &str) -> bool {
        if let Some(places) = self.exact.get(&(kind, key.to_string())) {
            if let Some(&i) = places.iter().find(|&&i| !self.exact_items[i].3) {
                self.exact_items[i].3 = true;
                return true;
            }
        }
        // A named placeholder may stand fewer times than in the source
        // ("{name} … another {name}" → "{name} … ein Weiteres").
        if kind == Kind::Placeholder && named(key) {
            return self.exact.contains_key(&(kind, key.to_string()));
        }
        if kind != Kind::Hashtag {
            return false;
        }
        // A hashtag written straight before text of another script
        // ("#weekendの") is still the hashtag.
        let last_ascii = key.chars().next_back().is_some_and(|c| c.is_ascii());
        let place = self.exact_items.iter().position(|(k, other, _, taken)| {
            !taken
                && *k == Kind::Hashtag
                && other
                    .strip_prefix(key)
                    .and_then(|rest| rest.chars().next())
                    .is_some_and(|c| c.is_ascii() != last_ascii)
        });
        place.map(|i| self.exact_items[i].3 = true).is_some()
    }

    /// The currency sign or code right before or after a span.
    fn mark(&self, (a, b): (usize, usize)) -> Option<&'static str> {
        let start = self.pieces[a].range.start;
        let end = self.pieces[b].range.end;
        let mut from = start.saturating_sub(12);
        while !self.text.is_char_boundary(from) {
            from += 1;
        }
        let before = MARK_BEFORE
            .find(&self.text[from..start])
            .and_then(|m| currency(m.as_str().trim()));
        let after = || {
            MARK_AFTER
                .find(&self.text[end..])
                .and_then(|m| currency(m.as_str().trim()))
        };
        before.or_else(after)
    }

    /// The minute written right after an hour piece ("9:30", "9h30",
    /// "9時30分", "9 Uhr 30"): the next piece's index.
    fn minute_after(&self, i: usize) -> Option<usize> {
        let next = self.pieces.get(i + 1)?;
        let gap = self.text[self.pieces[i].range.end..next.range.start].trim();
        let joins = matches!(
            gap,
            ":" | "." | "h" | "H" | "時" | "时" | "点" | "點" | "시" | "Uhr" | "u"
        );
        (joins && next.two).then_some(i + 1)
    }

    fn take_time(&mut self, hours: &[u64], minute: u64) -> bool {
        self.prune(None, hours);
        let candidates: Vec<usize> = hours
            .iter()
            .filter_map(|h| self.by_value.get(h))
            .flatten()
            .copied()
            .collect();
        // With its minutes first, then (for a full hour) the hour alone.
        for &i in &candidates {
            if self.used[i] {
                continue;
            }
            if let Some(m) = self.minute_after(i) {
                if !self.used[m] && self.pieces[m].value == Some(minute) {
                    self.used[i] = true;
                    self.used[m] = true;
                    return true;
                }
            }
        }
        if minute != 0 {
            return false;
        }
        for &i in &candidates {
            if !self.used[i] && self.minute_after(i).is_none() {
                self.used[i] = true;
                return true;
            }
        }
        false
    }

    fn take_date(&mut self, parts: &[DatePart]) -> bool {
        let mut taken = Vec::new();
        for part in parts {
            let values: Vec<u64> = match *part {
                DatePart::Plain(v) => vec![v],
                DatePart::Year(y) if y < 100 => vec![y, 1900 + y, 2000 + y],
                DatePart::Year(y) => {
                    let mut v = vec![y, y % 100];
                    if self.thai {
                        v.push(y + 543);
                    }
                    v
                }
            };
            self.prune(None, &values);
            let found = values
                .iter()
                .filter_map(|v| self.by_value.get(v))
                .flatten()
                .copied()
                .find(|&i| !self.used[i] && !taken.contains(&i));
            match found {
                Some(i) => taken.push(i),
                None => return false,
            }
        }
        for i in taken {
            self.used[i] = true;
        }
        true
    }

    /// Something of the item's kind in the output that matched nothing:
    /// where a missing item probably went (taken, so each is named once).
    fn leftover(&mut self, item: &Item) -> Option<Range<usize>> {
        match item.what {
            What::Exact(_) => {
                // Each kind's cursor only moves on: a pass over the output.
                let cursor = &mut self.exact_cursor[item.kind as usize];
                while self
                    .exact_items
                    .get(*cursor)
                    .is_some_and(|(k, _, _, taken)| *k != item.kind || *taken)
                {
                    *cursor += 1;
                }
                let i = *cursor;
                let (_, _, range, taken) = self.exact_items.get_mut(i)?;
                *taken = true;
                Some(range.clone())
            }
            _ => {
                while self
                    .runs
                    .get(self.run_cursor)
                    .is_some_and(|&r| !self.free(r))
                {
                    self.run_cursor += 1;
                }
                let free = self.runs[self.run_cursor.min(self.runs.len())..]
                    .iter()
                    .copied()
                    .filter(|&r| self.free(r));
                let run = match item.what {
                    // A price goes to the next number with a currency
                    // sign, if one comes soon.
                    What::Amount(..) => {
                        let soon: Vec<(usize, usize)> = free.take(16).collect();
                        soon.iter()
                            .copied()
                            .find(|&r| self.mark(r).is_some())
                            .or_else(|| soon.first().copied())
                    }
                    _ => free.take(1).next(),
                }?;
                self.take_span(run);
                let mut range = self.pieces[run.0].range.start..self.pieces[run.1].range.end;
                if let What::Amount(..) = item.what {
                    range = self.with_mark(range);
                }
                if let What::Time(..) = item.what {
                    if let Some(m) = self.minute_after(run.1) {
                        self.used[m] = true;
                        range.end = self.pieces[m].range.end;
                    }
                }
                Some(range)
            }
        }
    }

    /// A range widened over the currency mark next to it.
    fn with_mark(&self, range: Range<usize>) -> Range<usize> {
        let mut from = range.start.saturating_sub(12);
        while !self.text.is_char_boundary(from) {
            from += 1;
        }
        if let Some(m) = MARK_BEFORE.find(&self.text[from..range.start]) {
            return from + m.start()..range.end;
        }
        if let Some(m) = MARK_AFTER.find(&self.text[range.end..]) {
            return range.start..range.end + m.end();
        }
        range
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issues(source: &str, output: &str) -> Vec<String> {
        check(source, output, "xx")
            .iter()
            .map(|i| match &i.problem {
                Problem::Missing => format!("{} {} missing", i.kind.name(), i.text),
                Problem::Changed { found, .. } => {
                    format!("{} {} -> {found}", i.kind.name(), i.text)
                }
            })
            .collect()
    }

    fn kinds(source: &str) -> Vec<(Kind, String)> {
        let n = Normal::new(source);
        extract(&n.text, &SOURCE_LANGS)
            .into_iter()
            .map(|i| (i.kind, source[n.original_range(i.range)].to_string()))
            .collect()
    }

    #[test]
    fn the_issue_example_is_read_as_five_invariants() {
        assert_eq!(
            kinds("only £3.50 until 9 a.m. @cafe #weekend"),
            [
                (Kind::Amount, "£3.50".to_string()),
                (Kind::Time, "9 a.m.".to_string()),
                (Kind::Handle, "@cafe".to_string()),
                (Kind::Hashtag, "#weekend".to_string()),
            ]
        );
    }

    #[test]
    fn each_kind_is_found_where_it_stands() {
        let found = kinds(
            "See https://ex.com/a?b=1. Mail a.b@ex.co.uk, call 555 on 4 Dec 2026 \
             or 12/04/2026, at 17:30; {name} %(count)d %s %1$s {{x}} ${y} 50%% 🎉👍🏽 IPv4 v1.2.3",
        );
        let texts: Vec<&str> = found.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                "https://ex.com/a?b=1",
                "a.b@ex.co.uk",
                "555",
                "4 Dec 2026",
                "12/04/2026",
                "17:30",
                "{name}",
                "%(count)d",
                "%s",
                "%1$s",
                "{{x}}",
                "${y}",
                "50",
                "🎉",
                "👍🏽",
            ]
        );
    }

    #[test]
    fn decimal_and_grouping_marks_of_other_conventions_are_the_same_number() {
        for out in ["3,50", "٣٫٥٠", "۳٫۵۰", "३.५०", "৩.৫০", "๓.๕๐", "３．５０"]
        {
            assert_eq!(issues("3.50", out), Vec::<String>::new(), "{out}");
        }
        for out in [
            "1.000",
            "1 000",
            "1\u{202F}000",
            "1\u{A0}000",
            "1'000",
            "1’000",
            "1000",
        ] {
            assert_eq!(issues("1,000 cups", out), Vec::<String>::new(), "{out}");
        }
        assert!(issues("1,000,000", "10,00,000").is_empty());
        assert!(issues("1,234.5", "1.234,5").is_empty());
        assert_eq!(issues("1,000", "1,001"), ["number 1,000 -> 1,001"]);
        assert_eq!(issues("3.50", "3,05"), ["number 3.50 -> 3,05"]);
        // "3.500" is not 3.5 as grouping, but is as a decimal.
        assert!(issues("3.5", "3,500").is_empty());
    }

    #[test]
    fn ordinals_and_percentages_do_not_false_alarm() {
        for out in ["1.", "1er", "第1", "1-й"] {
            assert!(issues("the 1st day", out).is_empty(), "{out}");
        }
        for out in ["50 %", "%50", "50%", "٥٠٪"] {
            assert!(issues("50% off", out).is_empty(), "{out}");
        }
    }

    #[test]
    fn amounts_keep_their_number_and_currency() {
        for out in ["3,50 £", "£3.50", "3.50 GBP", "GBP 3,50", "3,50 livres"] {
            assert!(issues("only £3.50", out).is_empty(), "{out}");
        }
        assert_eq!(issues("only £3.50", "£3.05"), ["amount £3.50 -> £3.05"]);
        assert_eq!(issues("only £3.50", "3,50 $"), ["amount £3.50 -> 3,50 $"]);
        assert!(issues("₹500", "500 रु").is_empty());
        assert!(issues("¥1,200", "1200円").is_empty());
        assert!(issues("€5", "5 euros").is_empty());
    }

    #[test]
    fn times_in_the_accepted_forms() {
        for out in [
            "9:00", "09:00", "09h00", "9h", "9 Uhr", "9時", "9點", "9 a.m.", "9.00",
        ] {
            assert!(issues("open at 9 a.m.", out).is_empty(), "{out}");
        }
        for out in ["17:00", "17h", "5 p.m.", "17.00", "下午5点"] {
            assert!(issues("until 5pm", out).is_empty(), "{out}");
        }
        assert!(issues("at 9:30 am", "9時30分").is_empty());
        assert!(issues("at 9:30 am", "09h30").is_empty());
        assert_eq!(issues("at 9:30 am", "9 Uhr"), ["time 9:30 am -> 9"]);
        assert_eq!(issues("open at 9 a.m.", "10:00"), ["time 9 a.m. -> 10:00"]);
        assert_eq!(issues("open at 9 a.m.", "9:30"), ["time 9 a.m. -> 9:30"]);
    }

    #[test]
    fn dates_need_their_numbers_in_any_order() {
        for out in [
            "04/12/2026",
            "2026-12-04",
            "4.12.2026",
            "2026年12月4日",
            "12. 4. 2026",
        ] {
            assert!(issues("on 12/04/2026", out).is_empty(), "{out}");
            assert!(issues("on 2026-12-04", out).is_empty(), "{out}");
        }
        assert!(issues("on 4 Dec 2026", "4 décembre 2026").is_empty());
        assert!(issues("on Dec 4, 2026", "2026年12月4日").is_empty());
        assert_eq!(
            issues("on 4 Dec 2026", "5 décembre 2026"),
            ["date 4 Dec 2026 -> 5"]
        );
        assert!(issues("on 12/04/26", "12.04.2026").is_empty());
        // A Thai output may give the year in the Buddhist era.
        assert!(check("on 4 Dec 2026", "4 ธ.ค. 2569", "th").is_empty());
        assert!(!check("on 4 Dec 2026", "4 ธ.ค. 2569", "de").is_empty());
    }

    #[test]
    fn urls_emails_handles_hashtags_stay_as_written() {
        assert!(issues("see HTTPS://Ex.com/Path", "voir https://ex.com/Path.").is_empty());
        assert_eq!(
            issues("see https://ex.com/Path", "voir https://ex.com/path"),
            ["url https://ex.com/Path -> https://ex.com/path"]
        );
        assert!(issues("mail Me@Ex.com", "écrire à me@ex.com").is_empty());
        // A path segment naming the language may name the output's.
        let docs = "see https://docs.example.com/en/5.2/releases/";
        assert!(check(docs, "https://docs.example.com/fr/5.2/releases/", "fr").is_empty());
        assert!(check(
            docs,
            "https://docs.example.com/zh-hans/5.2/releases/",
            "zh_Hans"
        )
        .is_empty());
        assert_eq!(
            check(docs, "https://docs.example.com/de/5.2/releases/", "fr").len(),
            1
        );
        assert!(issues("@cafe", "@Cafe").is_empty());
        assert_eq!(issues("@cafe", "@cafe_x"), ["handle @cafe -> @cafe_x"]);
        assert_eq!(issues("@cafe", "café"), ["handle @cafe missing"]);
        assert!(issues("#weekend", "#weekendの").is_empty());
        assert_eq!(
            issues("#weekend", "#wochenende"),
            ["hashtag #weekend -> #wochenende"]
        );
        assert!(issues("#weekend", "#Weekend").is_empty());
    }

    #[test]
    fn emoji_and_placeholders_are_multisets() {
        assert!(issues("🎉 hi 🎉 ❤️", "❤ salut 🎉🎉").is_empty());
        assert_eq!(issues("🎉 hi 🎉", "salut 🎉"), ["emoji 🎉 missing"]);
        assert!(issues("%(name)s has %(count)d", "%(count)d: %(name)s").is_empty());
        assert_eq!(
            issues("{0} of {1}", "{0} de {2}"),
            ["placeholder {1} -> {2}"]
        );
        assert_eq!(issues("%s and %s", "%s et"), ["placeholder %s missing"]);
        assert_eq!(issues("{} and {}", "{} et"), ["placeholder {} missing"]);
        // A named one may be said once for two.
        assert!(issues(
            "The {name} was added. Add another {name}.",
            "{name} hinzugefügt."
        )
        .is_empty());
        assert!(issues("%(n)s of %(n)s", "%(n)s").is_empty());
        assert!(issues("100%% sure, 50%s", "100%% sûr, 50%s").is_empty());
    }

    #[test]
    fn digits_inside_names_and_placeholders_are_not_numbers() {
        assert!(kinds("IPv4 and H2O and mp3").is_empty());
        assert_eq!(kinds("%1$s"), [(Kind::Placeholder, "%1$s".to_string())]);
        // A placeholder's digits are not the number's in the output.
        assert_eq!(issues("1 item", "%1$s"), ["number 1 missing"]);
    }

    #[test]
    fn issues_name_source_and_output_bytes_and_round_trip_as_json() {
        let source = "only £3.50 until 9 a.m. @cafe #weekend";
        let output = "nur £3.05 bis 9 Uhr #weekend";
        let found = check(source, output, "de");
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].at, 5..11);
        assert_eq!(&source[found[0].at.clone()], "£3.50");
        let Problem::Changed { found: f, at } = &found[0].problem else {
            panic!("{found:?}")
        };
        assert_eq!((f.as_str(), &output[at.clone()]), ("£3.05", "£3.05"));
        assert_eq!(found[1].kind, Kind::Handle);
        assert_eq!(found[1].problem, Problem::Missing);
        let json = serde_json::to_string(&found).unwrap();
        assert!(
            json.contains(r#""problem":"changed","found":"£3.05","found_at":[4,10]"#),
            "{json}"
        );
        assert!(
            json.contains(r#""kind":"handle","text":"@cafe","at":[25,30],"problem":"missing"}"#),
            "{json}"
        );
        let back: Vec<Issue> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, found);
    }

    /// Many equal numbers, handles and times, every one changed: the
    /// check still reads each text about once (a quadratic pairing took
    /// 64 times as long for 8 times the text; here it must stay far below).
    #[test]
    fn long_texts_cost_one_pass() {
        let text = |n: usize, changed: bool| {
            let unit = if changed {
                "7 ab @x2 18:00 £4 "
            } else {
                "7 ab @x 9 a.m. £3 "
            };
            unit.repeat(n)
        };
        let time = |n: usize| {
            let (source, output) = (text(n, false), text(n, true));
            (0..3)
                .map(|_| {
                    let started = std::time::Instant::now();
                    let found = check(&source, &output, "de");
                    assert_eq!(found.len(), 3 * n);
                    started.elapsed()
                })
                .min()
                .unwrap()
        };
        let (small, large) = (time(500), time(4000));
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
        assert!(
            ratio < 24.0,
            "8 times the text took {ratio:.1} times as long"
        );
    }

    #[test]
    fn modes_parse() {
        assert_eq!("fail".parse::<Mode>(), Ok(Mode::Fail));
        assert_eq!(Mode::default(), Mode::Warn);
        assert!("strict".parse::<Mode>().is_err());
    }
}
