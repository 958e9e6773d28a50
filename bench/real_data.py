#!/usr/bin/env python3
"""Real-data benchmark helpers for bench/real.sh and tests/it/real_data.rs.

Independent of glossa's code on purpose: the labels are the oracle the
retrievers are measured against, so they are computed here from docs/formats.md's
wording ("v2: real glossaries") with Python regexes, not with glossa's
phrase rules.

  real_data.py glossary DICT_INDEX DICT_DZ OUT.json     FreeDict (dictd) -> glossary
  real_data.py posts WORDNET_DIR OUT.jsonl [--limit N]  WordNet examples -> posts
  real_data.py foldoc DICT_INDEX DICT_DZ GLOSSARY.json POSTS.jsonl [--limit N]
                                                FOLDOC -> glossary and posts
  real_data.py novel JANEAUSTENR_RDB DICT_INDEX DICT_DZ GLOSSARY.json POSTS.jsonl [--limit N]
                                                Austen's names + FreeDict -> glossary, novels -> posts
  real_data.py labels GLOSSARY POSTS STOPWORDS OUT.jsonl  verbatim terms -> labels (needed;
                                                nested ones whose target conflicts: wrong_sense)
  real_data.py report GLOSSARY POSTS LABELS PER_POST.jsonl  recall, unsupported entries
"""

import argparse
import gzip
import hashlib
import json
import re
import struct
import sys
import unicodedata
import zlib
from collections import defaultdict

ALNUM = r"[^\W_]"  # a letter or digit (Python's \w less the underscore)
APOSTROPHES = "'\u2019"


# ---------------------------------------------------------------- glossary

DICTD_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def dictd_number(text):
    """dictd's .index numbers are base 64 in their own alphabet."""
    n = 0
    for c in text:
        n = n * 64 + DICTD_B64.index(c)
    return n


def dictd_articles(index_path, dict_path):
    """(index headword, article text) in index order, metadata left out."""
    data = gzip.open(dict_path).read()  # dictzip is gzip-compatible
    with open(index_path, encoding="utf-8") as index:
        for line in index:
            head, offset, length = line.rstrip("\n").split("\t")
            if head.startswith("00database"):
                continue
            start = dictd_number(offset)
            yield head, data[start : start + dictd_number(length)].decode("utf-8")


def headword_as_written(article):
    """The article's first line without its /pronunciation/: the index
    lower-cases and strips punctuation, the article keeps them."""
    first = article.split("\n", 1)[0]
    # eng-deu adds symbols and abbreviations after it: "acute /ɐkjˈuːt/ (´)"
    head = re.sub(r"\s+/[^/]*/.*$", "", first).strip()
    # FreeDict's build writes hyphens as U+2010; people (and the posts) write '-'.
    return head.replace("\u2010", "-").replace("\u2011", "-")


def first_translation(article):
    for line in article.split("\n")[1:]:
        line = re.sub(r"^\d+\.\s*", "", line.strip())
        if line:
            return line.split(",")[0].strip()
    return ""


def is_term(head):
    """Templates ("... ago") and affixes ("-able", "co-") are not terms a
    post can contain."""
    has_alnum = re.search(ALNUM, head) is not None
    return has_alnum and "..." not in head and "\u2026" not in head and not head.startswith("-") and not head.endswith("-")


def freedict_terms(index_path, dict_path):
    """(source, target) of each article that is a term, and how many were
    not (templates, affixes, empty articles)."""
    terms, skipped = [], 0
    for _, article in dictd_articles(index_path, dict_path):
        source, target = headword_as_written(article), first_translation(article)
        if source and target and is_term(source):
            terms.append((source, target))
        else:
            skipped += 1
    return terms, skipped


def unique_id(source, ids):
    """`source`, or "source (2)", ... if taken ("Polish" and "polish" stay
    apart; true repeats get a number); the id is added to `ids`."""
    entry_id, n = source, 1
    while entry_id in ids:
        n += 1
        entry_id = f"{source} ({n})"
    ids.add(entry_id)
    return entry_id


def write_glossary(path, name, target_lang, entries):
    glossary = {"name": name, "source_lang": "en", "target_lang": target_lang, "entries": entries}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(glossary, out, ensure_ascii=False, indent=0)


def build_glossary(index_path, dict_path, out_path):
    terms, skipped = freedict_terms(index_path, dict_path)
    ids = set()
    entries = [{"id": unique_id(source, ids), "source": source, "target": target} for source, target in terms]
    write_glossary(out_path, "freedict-eng-fra", "fr", entries)
    print(f"glossary: {len(entries)} entries ({skipped} templates, affixes or empty articles left out)", file=sys.stderr)


# ------------------------------------------------------------------- posts

def wordnet_examples(wordnet_dir):
    """(synset, text) of every quoted example sentence in WordNet's data files."""
    for pos in ("noun", "verb", "adj", "adv"):
        with open(f"{wordnet_dir}/data.{pos}", encoding="utf-8", errors="replace") as data:
            for line in data:
                if line.startswith("  ") or " | " not in line:
                    continue  # licence header
                gloss = line.split(" | ", 1)[1]
                for k, text in enumerate(re.findall(r'"([^"]+)"', gloss)):
                    yield f"wn-{pos}-{line[:8]}-{k}", text.strip()


def build_posts(wordnet_dir, out_path, limit):
    seen, posts = set(), []
    for post_id, text in wordnet_examples(wordnet_dir):
        if text and text not in seen:
            seen.add(text)
            posts.append({"id": post_id, "text": text})
    posts = stable_sample(posts, limit)
    write_posts(posts, out_path)
    print(f"posts: {len(posts)} WordNet example sentences", file=sys.stderr)


def stable_sample(posts, limit):
    """A stable, spread-out sample of `limit` posts (all if 0): the posts
    whose text hashes lowest, in their order."""
    if not limit or limit >= len(posts):
        return posts
    keep = set(sorted(range(len(posts)), key=lambda i: hashlib.sha1(posts[i]["text"].encode()).digest())[:limit])
    return [p for i, p in enumerate(posts) if i in keep]


def write_posts(posts, out_path):
    with open(out_path, "w", encoding="utf-8") as out:
        for post in posts:
            out.write(json.dumps(post, ensure_ascii=False) + "\n")


# ------------------------------------------------------------------ FOLDOC

def foldoc_headwords_and_paragraphs(index_path, dict_path):
    """(headwords as written, body paragraphs) of each FOLDOC article. An
    article starts with its headwords, one a line ("flame", "flamage",
    "flaming"), then a blank line and the definition; the index lists it
    once per headword."""
    seen = set()
    for _, article in dictd_articles(index_path, dict_path):
        if article.startswith("00-database") or article in seen:
            continue  # dictd's metadata articles, and articles already read
        seen.add(article)
        head, _, body = article.partition("\n\n")
        # Headwords of symbols only ("&", "~#", ":-)") are terms too (SPEC v2).
        names = [line.strip() for line in head.split("\n") if line.strip()]
        if names:
            yield names, body.split("\n\n")


def foldoc_sentences(paragraph):
    """The running text of a definition paragraph, as sentences: cross
    references ("{Unix}") lose their braces, categories ("<language>") go,
    and citations, dates, code and addresses are left out."""
    text = paragraph.strip()
    if not text or text.startswith("[") or re.fullmatch(r"\(\d{4}-\d\d-\d\d\)", text):
        return []
    if re.search(r"https?://|ftp://|^ {6}", paragraph, re.M):
        return []  # addresses and indented code
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"<[a-z ,]+>\s*", "", text)
    text = re.sub(r"\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"^\d+\.\s+", "", text)  # sense numbers
    return [s for s in re.split(r'(?<=[.!?])\s+(?=[A-Z"])', text) if 5 <= len(s.split()) <= 60]


def build_foldoc(index_path, dict_path, glossary_path, posts_path, limit):
    """FOLDOC (the Free On-line Dictionary of Computing) as a termbase:
    every headword is an entry (acronyms, punctuation, versions, long
    names: "C++", "TCP/IP", "IEEE 802.3", "Association of C and C++
    Users"), and the sentences of the definitions, which use these terms
    as people write them, are the posts. FOLDOC is English only, so the
    targets are placeholders: this measures retrieval, not translation."""
    entries, ids, posts, seen = [], set(), [], set()
    for n, (names, paragraphs) in enumerate(foldoc_headwords_and_paragraphs(index_path, dict_path)):
        for source in dict.fromkeys(names):
            entries.append({"id": unique_id(source, ids), "source": source, "target": f"[{source}]"})
        for p, paragraph in enumerate(paragraphs):
            for s, text in enumerate(foldoc_sentences(paragraph)):
                if text not in seen:
                    seen.add(text)
                    posts.append({"id": f"foldoc-{n}-{p}-{s}", "text": text})
    posts = stable_sample(posts, limit)
    write_glossary(glossary_path, "foldoc", "und", entries)
    write_posts(posts, posts_path)
    print(f"glossary: {len(entries)} FOLDOC headwords; posts: {len(posts)} sentences of its definitions", file=sys.stderr)


# ------------------------------------------------------------------- novel

def r_character_vectors(rdb_path):
    """The character vectors of an R lazy-load database (.rdb): a run of
    objects, each a 4-byte length and a zlib stream of R's XDR
    serialisation. janeaustenr's holds one vector of lines per novel."""
    data = open(rdb_path, "rb").read()
    pos = 0
    while pos < len(data):
        stream = zlib.decompressobj()
        raw = stream.decompress(data[pos + 4 :])
        pos = len(data) - len(stream.unused_data)
        yield r_strings(raw)


def r_strings(raw):
    """A serialised R character vector (STRSXP of CHARSXPs; NA as "")."""
    at = 0

    def integer():
        nonlocal at
        at += 4
        return struct.unpack(">i", raw[at - 4 : at])[0]

    if raw[:2] != b"X\n":
        raise ValueError("not an R XDR serialisation")
    at = 2
    version, _, _ = integer(), integer(), integer()
    if version == 3:
        name_length = integer()  # the native encoding's name
        at += name_length
    if integer() & 0xFF != 16:
        raise ValueError("not a character vector")
    strings = []
    for _ in range(integer()):
        integer()  # CHARSXP flags
        n = integer()
        strings.append("" if n < 0 else raw[at : at + n].decode("utf-8", "replace"))
        at += max(n, 0)
    return strings


TITLES = ("Mr.", "Mrs.", "Dr.", "St.")


def novel_sentences(lines):
    """Paragraphs (blank-line separated) split into sentences; "_word_"
    (italics) loses its underscores, and a title's full stop ("Mr.
    Darcy") ends no sentence."""
    text = re.sub(r"_([^_]*)_", r"\1", "\n".join(lines))
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = re.sub(r"\s+", " ", paragraph).strip()
        if re.fullmatch(r"(CHAPTER|Chapter|VOLUME) [IVXLC\d]+\.?", paragraph):
            continue
        pieces = re.split(r'(?:(?<=[.!?])|(?<=[.!?]["\u201d])) +(?=["\u201c]?[A-Z])', paragraph)
        sentence = ""
        for piece in pieces:
            sentence = f"{sentence} {piece}".strip()
            if not sentence.endswith(TITLES):
                yield sentence
                sentence = ""
        if sentence:
            yield sentence


def novel_names(sentences, lower_words):
    """A translator's list of names for one novel: capitalised runs
    written mid-sentence at least three times ("Elizabeth", "Mr. Darcy",
    "Lady Catherine de Bourgh", "Rosings Park") that hold a word the
    novels never write in lower case (so "Park" alone is not a name)."""
    run = r"(?:(?:Mr|Mrs|Dr|St)\. |Miss |Lady |Sir |Colonel |Captain )?[A-Z][a-z]+(?: (?:de )?[A-Z][a-z]+)*"
    counts = defaultdict(int)
    for sentence in sentences:
        for match in re.finditer(rf"(?<=[a-z,;] ){run}", sentence):
            words = re.findall(r"[A-Za-z]+", match.group())
            if any(w.lower() not in lower_words and w not in ("Mr", "Mrs", "Dr", "St") for w in words):
                counts[match.group()] += 1
    return sorted(name for name, n in counts.items() if n >= 3)


def build_novel(rdb_path, index_path, dict_path, glossary_path, posts_path, limit):
    """A novel in translation: the names of Pride and Prejudice (mined as a
    translator's term list would hold them) and a general dictionary
    (bench/real.sh: FreeDict English-German) as the glossary, the sentences of Jane Austen's six novels
    (Debian r-cran-janeaustenr, public domain) as posts. The other five
    novels' people and places are in no glossary and no word list: the
    names a typo tier must leave alone."""
    books = {lines[0].strip().upper(): lines for lines in r_character_vectors(rdb_path)}
    sentences = {title: list(novel_sentences(lines[1:])) for title, lines in books.items()}
    lower_words = {w for lines in books.values() for w in re.findall(r"\b[a-z]+\b", " ".join(lines))}
    names = novel_names(sentences["PRIDE AND PREJUDICE"], lower_words)
    entries = [{"id": name, "source": name, "target": name} for name in names]
    ids = set(names)
    for source, target in freedict_terms(index_path, dict_path)[0]:
        if source not in ids:  # the first article of a headword
            ids.add(source)
            entries.append({"id": source, "source": source, "target": target})
    posts, seen = [], set()
    for title, book in sentences.items():
        slug = re.sub(r"\W+", "-", title.lower())
        for n, text in enumerate(book):
            if 4 <= len(text.split()) <= 60 and text not in seen:
                seen.add(text)
                posts.append({"id": f"{slug}-{n}", "text": text})
    posts = stable_sample(posts, limit)
    name = re.sub(r"\.index$", "", index_path.rsplit("/", 1)[-1])  # freedict-eng-deu
    write_glossary(glossary_path, f"austen-names+{name}", name.rsplit("-", 1)[-1][:2], entries)
    write_posts(posts, posts_path)
    print(f"glossary: {len(names)} names of Pride and Prejudice + {len(entries) - len(names)} FreeDict entries; "
          f"posts: {len(posts)} sentences of six novels", file=sys.stderr)


# ------------------------------------------------------------------ labels

def load_stopwords(path):
    with open(path, encoding="utf-8") as f:
        return {w.strip() for w in f if w.strip() and not w.startswith("#")}


def in_capitals(key):
    """SPEC v2: two or more letters, all upper case ("IT", "MRI")."""
    letters = [c for c in key if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def is_lone_stopword(key, stopwords):
    """SPEC v2: a key (rule 6: its words, "A#" is keyed "a") that is a
    single stop word, unless written in capitals ("US", "IT"), is never
    looked up."""
    words = spec_words(key)
    return not in_capitals(key) and len(words) == 1 and words[0] in stopwords


def key_regex(key):
    """The key as written: whitespace runs equal, either apostrophe, no letter
    or digit right before or after; case-insensitive unless in capitals."""
    body = "".join(
        r"\s+" if part.isspace() else "['\u2019]" if part in APOSTROPHES else re.escape(part)
        for part in re.findall(r"\s+|.", key.strip(), re.S)
    )
    flags = 0 if in_capitals(key) else re.IGNORECASE
    return re.compile(f"(?<!{ALNUM}){body}(?!{ALNUM})", flags)


def alnum_runs(text):
    return re.findall(f"{ALNUM}+", text.casefold())


class VerbatimOracle:
    """Which entries occur in a text as written in the glossary (SPEC v2)."""

    def __init__(self, entries, stopwords):
        self.by_first_run = defaultdict(list)  # candidates: a post must contain the key's first run
        self.symbols_only = []  # "±", "&": no run to look up by, tried on every post
        for order, entry in enumerate(entries):
            for key in [entry["source"]] + entry.get("aliases", []):
                if is_lone_stopword(key.strip(), stopwords):
                    continue
                runs = alnum_runs(key)
                if runs:
                    self.by_first_run[runs[0]].append((order, entry["id"], set(runs[1:]), key))
                elif key.strip():
                    self.symbols_only.append((order, entry["id"], key))
        self.regexes = {}  # compiled when first needed: most keys never are

    def occurrences(self, text):
        """(entry id, character spans of its keys in `text`) of each entry
        written in `text`, in glossary order."""
        found = defaultdict(list)
        ids = {}
        runs = set(alnum_runs(text))
        for run in runs:
            for order, entry_id, other_runs, key in self.by_first_run.get(run, ()):
                # the set test only skips regexes that cannot match
                if other_runs <= runs:
                    spans = self.spans(key, text)
                    if spans:
                        found[order] += spans
                        ids[order] = entry_id
        for order, entry_id, key in self.symbols_only:
            spans = self.spans(key, text)
            if spans:
                found[order] += spans
                ids[order] = entry_id
        return [(ids[k], found[k]) for k in sorted(found)]

    def spans(self, key, text):
        """Every place `key` is written in `text`, overlapping ones included."""
        regex, spans, start = self.regex(key), [], 0
        while (m := regex.search(text, start)) is not None:
            spans.append(m.span())
            start = m.start() + 1
        return spans

    def regex(self, key):
        if key not in self.regexes:
            self.regexes[key] = key_regex(key)
        return self.regexes[key]


def key_kinds(key):
    """The phenomena a key shows, for tags and the report's breakdown."""
    words = alnum_runs(key)
    kinds = []
    if in_capitals(key):
        kinds.append("capitals")
    if any(not c.isalnum() and not c.isspace() and c not in APOSTROPHES for c in key):
        kinds.append("punctuation")
    if any(c in APOSTROPHES for c in key):
        kinds.append("apostrophe")
    if any(c.isdigit() for c in key):
        kinds.append("digits")
    if len(words) >= 5:
        kinds.append("5+ words")
    elif len(words) >= 2:
        kinds.append("2-4 words")
    elif not words:
        kinds.append("symbols only")
    elif len(words[0]) < 3:
        kinds.append("short word")
    else:
        kinds.append("one word")
    return kinds


def build_labels(glossary_path, posts_path, stopwords_path, out_path):
    """Each post needs the entries written in it as in the glossary, except
    one written only inside a longer such term whose target conflicts with
    its own ("cream" -> Sahne inside "ice cream" -> Eis, "miss" ->
    Fehlschuss inside "Miss Bennet"): a translator would not list it, and
    giving it to a model is a wrong sense (docs/formats.md, `longest`)."""
    entries = load_glossary(glossary_path)
    oracle = VerbatimOracle(entries, load_stopwords(stopwords_path))
    key_runs = KeyRuns(entries)
    by_id = {e["id"]: e for e in entries}
    posts, needed_total, with_terms, conflicting = 0, 0, 0, 0
    with open(out_path, "w", encoding="utf-8") as out:
        for post in read_jsonl(posts_path):
            written = oracle.occurrences(post["text"])
            wrong = nested_with_conflicting_targets(post["text"], written, key_runs, by_id)
            needed = [entry_id for entry_id, _ in written if entry_id not in wrong]
            tags = sorted({kind for entry_id in needed for kind in key_kinds(by_id[entry_id]["source"])})
            label = {"post": post["id"], "needed": needed, "wrong_sense": sorted(wrong), "tags": tags}
            out.write(json.dumps(label, ensure_ascii=False) + "\n")
            posts, needed_total, with_terms = posts + 1, needed_total + len(needed), with_terms + bool(needed)
            conflicting += len(wrong)
    print(f"labels: {needed_total} verbatim terms in {with_terms} of {posts} posts (posts with none are kept); "
          f"{conflicting} more written only inside a longer term whose target conflicts (labelled wrong_sense)",
          file=sys.stderr)


def word_spans(text):
    """The character spans of the SPEC words of `text` (see spec_words)."""
    return [m.span() for m in re.finditer(SPEC_WORD, text.lower())]


class KeyRuns:
    """Where a key of two or more letter and digit runs is written in a post
    with its runs in a row whatever stands between them ("sitting-room" for
    "sitting room", "day's" holds "day"): the phrase-key match, which the
    default counts as written too."""

    def __init__(self, entries):
        self.by_first_run = defaultdict(list)
        for entry in entries:
            for key in [entry["source"]] + entry.get("aliases", []):
                runs = alnum_runs(key)
                if len(runs) >= 2 and not in_capitals(key):
                    self.by_first_run[runs[0]].append((entry["id"], runs))

    def places(self, text):
        """(entry id, character span) of each key run in `text`; a run never
        crosses a line break or `. , ; : ! ? ( ) [ ] " “ ” …` (SPEC phrase
        rule 3), but a decimal mark between digits is no boundary."""
        runs = [(m.group(), m.span()) for m in re.finditer(f"{ALNUM}+", text.casefold())]
        texts = [r for r, _ in runs]
        apart = [
            any(c in BOUNDARIES for c in text[a[1][1] : b[1][0]])
            and not (text[a[1][1] : b[1][0]] in (".", ",") and a[0][-1].isdigit() and b[0][0].isdigit())
            for a, b in zip(runs, runs[1:])
        ]
        for i, run in enumerate(texts):
            for entry_id, key in self.by_first_run.get(run, ()):
                last = i + len(key) - 1
                if texts[i : last + 1] == key and not any(apart[i:last]):
                    yield entry_id, (runs[i][1][0], runs[last][1][1])


BOUNDARIES = set('\n.,;:!?()[]"\u201c\u201d\u2026')


def nested_with_conflicting_targets(text, written, key_runs, by_id):
    """The entries of `written` (VerbatimOracle.occurrences) whose every
    place lies inside the place of another entry written over more words
    (as written, or as a run of its key's words), whose target conflicts
    with theirs (targets_agree)."""
    words = word_spans(text)

    def word_count(span):
        return sum(1 for start, end in words if start < span[1] and span[0] < end)

    outers = [(entry_id, span) for entry_id, spans in written for span in spans]
    outers += list(key_runs.places(text))
    outers = [(entry_id, span, word_count(span)) for entry_id, span in outers]
    wrong = set()
    for inner, spans in written:
        def hidden(span, inner=inner):
            # its letters and digits: "sure" of "Sure!" is inside "be sure"
            runs = [m.span() for m in re.finditer(f"{ALNUM}+", text[span[0] : span[1]])]
            if runs:
                span = (span[0] + runs[0][0], span[0] + runs[-1][1])
            n = word_count(span)
            return n > 0 and any(
                outer != inner and count > n and start <= span[0] and span[1] <= end
                and not targets_agree(by_id[outer], by_id[inner])
                for outer, (start, end), count in outers
            )
        if all(hidden(span) for span in spans):
            wrong.add(inner)
    return wrong


def fold_target(target):
    """Lower case, accents aside (canonical decomposition less the combining
    diacritical marks U+0300-U+036F), the micro sign as mu."""
    decomposed = unicodedata.normalize("NFD", target.lower())
    return "".join(c for c in decomposed if not "\u0300" <= c <= "\u036f").replace("\u00b5", "\u03bc")


def targets_agree(outer, inner):
    """Whether `inner`'s target (or one of its forms) shares a piece with
    `outer`'s: three characters of one of its words (two in scripts written
    without spaces), or the whole of a shorter word, case and accents aside
    (docs/formats.md)."""
    outer_targets = [fold_target(t) for t in [outer["target"]] + outer.get("forms", [])]
    for target in (fold_target(t) for t in [inner["target"]] + inner.get("forms", [])):
        words = re.findall(f"{ALNUM}+", target)
        if not words and any(target.strip() in o for o in outer_targets):
            return True
        for word in words:
            size = 2 if any(written_without_spaces(c) for c in word) else 3
            pieces = [word] if len(word) <= size else [word[i : i + size] for i in range(len(word) - size + 1)]
            if any(piece in o for piece in pieces for o in outer_targets):
                return True
    return False


# Scripts written without spaces (Unicode blocks): Thai, Lao, Myanmar, Khmer,
# CJK, kana.
WITHOUT_SPACES = [
    (0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x19E0, 0x19FF), (0x2E80, 0x2FDF),
    (0x3005, 0x3007), (0x3021, 0x3029), (0x3031, 0x3035), (0x3038, 0x303C), (0x3040, 0x30FF),
    (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F),
    (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0x1AFF0, 0x1B16F), (0x20000, 0x323AF),
]


def written_without_spaces(c):
    return any(lo <= ord(c) <= hi for lo, hi in WITHOUT_SPACES)


# ------------------------------------------------------------------ report

# SPEC phrase rules 1-2: alphanumeric runs, an apostrophe between two
# letters kept inside the word.
SPEC_WORD = f"{ALNUM}+(?:(?<=[^\\W\\d_])['\u2019](?=[^\\W\\d_]){ALNUM}+)*"


def spec_words(text):
    """SPEC phrase rules 1-2: lower case, alphanumeric runs, an apostrophe
    between two letters kept inside the word as '."""
    return [w.replace("\u2019", "'") for w in re.findall(SPEC_WORD, text.lower())]


def contains_run(seq, run):
    n = len(run)
    return n > 0 and any(seq[i : i + n] == run for i in range(len(seq) - n + 1))


class StemSupport:
    """Is a retrieved entry supported by a run of the post's stems?"""

    def __init__(self, entries):
        import snowballstemmer  # installed by bench/real.sh

        self.stem = snowballstemmer.stemmer("english").stemWords
        self.keys = defaultdict(list)  # entry id -> its keys' stems
        self.symbols = defaultdict(list)  # entry id -> regexes of its keys of symbols only
        for e in entries:
            for k in [e["source"]] + e.get("aliases", []):
                words = spec_words(k)
                if words:
                    self.keys[e["id"]].append(self.stem(words))
                else:  # "&": no stems; written in the post, it is supported
                    self.symbols[e["id"]].append(key_regex(k))

    def unsupported(self, text, retrieved):
        stems = self.stem(spec_words(text))
        return [
            e
            for e in retrieved
            if not any(contains_run(stems, key) for key in self.keys.get(e, ()))
            and not any(r.search(text) for r in self.symbols.get(e, ()))
        ]


class Tally:
    """One retriever's figures over the posts."""

    def __init__(self):
        self.posts = self.retrieved = self.unsupported = 0
        self.conflicting = self.conflicting_retrieved = 0  # labelled wrong_sense
        self.needed = defaultdict(int)  # by kind of term, "all" included
        self.found = defaultdict(int)
        self.misses = []  # (entry, post)
        self.unsupported_by_kind = defaultdict(int)  # by kind of match

    def recall(self, kind):
        needed, found = self.needed[kind], self.found[kind]
        return f"{found} of {needed} ({100 * found / needed:.1f}%)" if needed else "-"


def report(glossary_path, posts_path, labels_path, per_post_path):
    entries = load_glossary(glossary_path)
    kinds_of = {e["id"]: key_kinds(e["source"]) for e in entries}
    text_of = {p["id"]: p["text"] for p in read_jsonl(posts_path)}
    labels = {l["post"]: l for l in read_jsonl(labels_path)}
    support = StemSupport(entries)
    tallies = defaultdict(Tally)
    for line in read_jsonl(per_post_path):
        tally, result = tallies[line["retriever"]], line["result"]
        retrieved = set(result["retrieved"])
        tally.posts += 1
        tally.retrieved += len(retrieved)
        unsupported = support.unsupported(text_of[result["post"]], result["retrieved"])
        tally.unsupported += len(unsupported)
        kind_of = {}
        for match in result["matches"]:
            kind_of.setdefault(match["entry"], match["kind"])
        for entry_id in unsupported:
            tally.unsupported_by_kind[kind_of.get(entry_id, "?")] += 1
        wrong_sense = labels[result["post"]].get("wrong_sense", [])
        tally.conflicting += len(wrong_sense)
        tally.conflicting_retrieved += sum(e in retrieved for e in wrong_sense)
        for entry_id in labels[result["post"]]["needed"]:
            hit = entry_id in retrieved
            for kind in ["all"] + kinds_of[entry_id]:
                tally.needed[kind] += 1
                tally.found[kind] += hit
            if not hit:
                tally.misses.append((entry_id, result["post"]))
    print_report(tallies, text_of, {e["id"]: e["source"] for e in entries})


def print_report(tallies, text_of, source_of):
    print(f"{'retriever':<12} {'recall on verbatim terms':>28} {'retrieved/post':>15} {'unsupported/post':>17} "
          f"{'conflicting nested':>19}")
    for name, t in tallies.items():
        print(f"{name:<12} {t.recall('all'):>28} {t.retrieved / t.posts:>15.2f} {t.unsupported / t.posts:>17.2f} "
              f"{t.conflicting_retrieved:>9} of {t.conflicting:<7}")
    print("(conflicting nested: terms written only inside a longer term whose target conflicts, "
          "labelled wrong_sense, that were retrieved)")
    print("\nunsupported entries per post by kind of match")
    for name, t in tallies.items():
        by_kind = sorted(t.unsupported_by_kind.items(), key=lambda kv: -kv[1])
        print(f"{name:<12} " + (", ".join(f"{kind} {n / t.posts:.3f}" for kind, n in by_kind) or "none"))
    kinds = sorted({kind for t in tallies.values() for kind in t.needed if kind != "all"})
    print("\nrecall by kind of term (a term may be of several kinds)")
    print(f"{'kind':<12} " + " ".join(f"{name:>24}" for name in tallies))
    for kind in kinds:
        print(f"{kind:<12} " + " ".join(f"{t.recall(kind):>24}" for t in tallies.values()))
    for name, t in tallies.items():
        causes = defaultdict(list)
        for entry_id, post in t.misses:
            causes[miss_cause(source_of[entry_id], text_of[post])].append((entry_id, post))
        print(f"\n{name}: {len(t.misses)} missed: " + ", ".join(f"{len(m)} {c}" for c, m in causes.items()))
        for cause, missed in causes.items():
            for entry_id, post in missed[:3]:
                print(f"  {cause}: {entry_id} | {text_of[post]}")


def miss_cause(source, text):
    """Why a verbatim term may have been missed: next to an apostrophe
    ("the year's work": SPEC v2 finds "year", v1's words do not), else the
    rarest kind of its key."""
    match = key_regex(source).search(text)
    before, after = text[max(0, match.start() - 2) : match.start()], text[match.end() : match.end() + 2]
    if re.fullmatch(f"{ALNUM}['\u2019]", before) or re.fullmatch(f"['\u2019]{ALNUM}", after):
        return "next to an apostrophe"
    kinds = key_kinds(source)
    return next((k for k in ("5+ words", "capitals", "punctuation", "short word", "digits") if k in kinds), kinds[-1])


# ----------------------------------------------------------------- helpers

def load_glossary(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["entries"]


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, args in [
        ("glossary", ["index", "dict", "out"]),
        ("posts", ["wordnet_dir", "out"]),
        ("foldoc", ["index", "dict", "glossary_out", "posts_out"]),
        ("novel", ["rdb", "index", "dict", "glossary_out", "posts_out"]),
        ("labels", ["glossary", "posts", "stopwords", "out"]),
        ("report", ["glossary", "posts", "labels", "per_post"]),
    ]:
        command = commands.add_parser(name)
        for arg in args:
            command.add_argument(arg)
        if name in ("posts", "foldoc", "novel"):
            command.add_argument("--limit", type=int, default=0, help="keep this many posts (a stable sample)")
    a = parser.parse_args()
    if a.command == "glossary":
        build_glossary(a.index, a.dict, a.out)
    elif a.command == "posts":
        build_posts(a.wordnet_dir, a.out, a.limit)
    elif a.command == "foldoc":
        build_foldoc(a.index, a.dict, a.glossary_out, a.posts_out, a.limit)
    elif a.command == "novel":
        build_novel(a.rdb, a.index, a.dict, a.glossary_out, a.posts_out, a.limit)
    elif a.command == "labels":
        build_labels(a.glossary, a.posts, a.stopwords, a.out)
    else:
        report(a.glossary, a.posts, a.labels, a.per_post)


if __name__ == "__main__":
    main()
