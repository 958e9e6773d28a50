//! Command-line definitions only (clap derive); behaviour lives in
//! `commands/`.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use glossa::generate::provider;
use glossa::invariants::Mode;
use glossa::report::Format;
use glossa::retrieve::params::{BadParam, Tunable, EDIT_ONE_FROM, EDIT_TWO_FROM, THRESHOLD};
use glossa::retrieve::LEMMAS;
use std::path::PathBuf;

/// The bundled café demo, used when no files are named.
pub const DEMO_GLOSSARY: &str = glossa::demo::GLOSSARY;
pub const DEMO_POSTS: &str = glossa::demo::POSTS;
pub const DEMO_LABELS: &str = glossa::demo::LABELS;

#[derive(Debug, Parser)]
#[command(
    name = "glossa",
    version,
    about = "Glossary-grounded translation: find the glossary entries a post needs, and measure whether they were found",
    long_about = "glossa looks up every 1-4-word phrase of an English post in a glossary \
                  (English term -> target term) through swappable retrievers, and scores \
                  those retrievers on labelled posts with no model and no API key.\n\n\
                  Start with `glossa eval` (the bundled cafe demo), then `glossa retrieve \"your post\"` \
                  and `glossa phrases \"your post\"` to see why something did or did not match.",
    after_help = "Exit codes: 0 ok, 1 it ran but a result failed (a gate, lint warnings, failed or missing calls), \
                  2 bad input or usage, 130 interrupted."
)]
pub struct Cli {
    /// Colour the status words on stderr: auto (a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = clap::ColorChoice::Auto, display_order = 900)]
    pub color: clap::ColorChoice,
    /// Send a trace of this invocation (a span per post and stage) to this OpenTelemetry collector over OTLP/HTTP, e.g. http://127.0.0.1:6006 for Arize Phoenix; default: OTEL_EXPORTER_OTLP_ENDPOINT, else off (docs/telemetry.md)
    #[arg(long, global = true, value_name = "URL", display_order = 901)]
    pub otlp: Option<String>,
    /// With --otlp (or OTEL_EXPORTER_OTLP_ENDPOINT): also put each post, prompt and reply text on its spans (they may be private; API keys never are)
    #[arg(long, global = true, display_order = 902)]
    pub otlp_text: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score retrievers on labelled posts (recall, precision, wrong senses, complete posts)
    #[command(after_help = "Examples:\n  \
        glossa eval                                   # the bundled cafe demo, all five retrievers\n  \
        glossa eval --retriever exact,fuzzy --threshold 0.8 --by-tag\n  \
        glossa eval --glossary g.json --posts p.jsonl --labels l.jsonl --split test --format json\n  \
        glossa eval --retriever exact,normalised,fuzzy --compare      # paired test for every pair, p-values\n  \
        glossa eval --retriever fuzzy --fail-under recall=0.9,complete=0.8 --fail-over wrong_sense=0   # CI gate\n\n\
        Results are saved to runs/<UTC timestamp>_<suite>_eval.json unless --no-save.\n\n\
        Gate: --fail-under bounds ratios (recall, precision, complete = share of posts complete; \
        0.9 or 90%), --fail-over bounds counts (wrong_sense, extra, missed). A bound applies to every \
        retriever evaluated, or to one when prefixed with its name: --fail-under fuzzy:recall=0.9. \
        Bounds are checked on the posts scored (--split). Exit codes: 0 ok, 1 a bound was not met \
        (each failing figure, its value and the bound are printed on stderr), 2 bad input.")]
    Eval(EvalArgs),
    /// Show one post's glossary matches: entry, target, how it matched, phrase, score
    #[command(
        after_help = "Example:\n  glossa retrieve \"Free home delivry on weekends!\" --retriever fuzzy"
    )]
    Retrieve(RetrieveArgs),
    /// Show every phrase of a text, as retrievers see it (why didn't it match?)
    #[command(
        after_help = "Single words that are stop words, shorter than 3 characters or all digits \
        are listed but marked as skipped: they are never looked up on their own.\n\n\
        Example:\n  glossa phrases \"Free home delivry on week-ends!\" --format json"
    )]
    Phrases(PhrasesArgs),
    /// List the retrievers that --retriever accepts
    Retrievers,
    /// Check a glossary: duplicate and nested keys, keys that never match, English targets, ambiguous words
    #[command(
        after_help = "Each finding names the entry, its line in the glossary and a suggestion. \
        Warnings: duplicate-key, never-matches, context-own-key, target-english, form (empty), ambiguous (no `context`). \
        Notes: nested, redundant-alias, one-letter, symbols-only, leading-article, form, ambiguous (no `sense`).\n\n\
        --suggest-aliases proposes synonyms from WordNet's data files (Debian: `apt-get install wordnet-base`), \
        restricted to each entry's sense; nothing is written, a person decides.\n\n\
        --for ENGINE (deepl, google, google-sets, amazon, amazon-tsv) also checks the limits of the file \
        `glossa export --to ENGINE` would write (errors: deepl-duplicate, deepl-characters, deepl-entry-size, \
        deepl-file-size, amazon-term-size, amazon-file-size, google-size, engine-language; warning: amazon-duplicate).\n\n\
        Exit codes: 0 no warnings (notes may be listed), 1 at least one warning, \
        2 the glossary cannot be read, or --suggest-aliases without WordNet data files.\n\n\
        Examples:\n  \
        glossa lint glossaries/cafe.json\n  \
        glossa lint my.json --format json\n  \
        glossa lint my.json --suggest-aliases --domain food\n  \
        glossa lint my.json --for deepl                    # what DeepL would refuse"
    )]
    Lint(LintArgs),
    /// Translate a post (or a file of posts: --posts) with its glossary entries, and check the output
    #[command(after_help = "Examples:\n  \
        glossa translate \"Try our cold coffee this weekend.\"          # offline: dictionary substitution\n  \
        echo \"Fresh cookies!\" | glossa translate --provider openai --model gpt-4o-mini\n  \
        glossa translate --file post.txt --provider openai --base-url http://127.0.0.1:11434/v1 --model llama3 \\\n      \
          --temperature 0 --seed 1 --max-tokens 400                 # a local server (Ollama): no key\n  \
        glossa translate \"...\" --format json                          # the whole trace, every stage timed\n  \
        glossa translate --posts week.txt --provider openai --model gpt-4o-mini -j 8 --out week.fr.txt\n\n\
        --posts FILE: one post per line (line N of the output is line N's translation, blank where a call \
        failed), or JSONL with id and text (--format json: one JSON object per post, in order; csv: a table). \
        Each post is checked (every retrieved glossary target in its output); failed calls and missing \
        targets are listed on stderr. Answered calls are cached: run the same command again to finish \
        an interrupted batch or redo the failed calls. Exit codes: 0 every call answered, 1 a call failed, \
        2 bad input, 130 interrupted.")]
    Translate(TranslateArgs),
    /// Compile a glossary once so that translate, retrieve, eval, run and serve open it at once, whatever its size
    #[command(after_help = "Examples:\n  \
        glossa compile -g termbase.json            # into runs/cache/compiled/, where translate looks\n  \
        glossa translate -g termbase.json \"Fresh loaves today\"   # reads only the entries the post could match\n  \
        glossa compile -g termbase.json -o termbase.glossa-index   # a file of your choosing ...\n  \
        glossa eval -g termbase.json -p posts.jsonl -l labels.jsonl --index termbase.glossa-index   # ... given by name\n\n\
        translate, retrieve, eval, run and serve compile a glossary file of 4 MiB or more by themselves on first use and \
        rebuild it when the glossary changes (--compiled auto|always|never); `compile` does it ahead of time \
        and says where and how long.")]
    Compile(CompileArgs),
    /// Batch experiment: every retriever x repeat x labelled post through a model, checked
    #[command(after_help = "Examples:\n  \
        glossa run --repeat 3                                       # cafe demo, offline provider\n  \
        glossa run --retriever exact,normalised+fuzzy,oracle --repeat 3 --provider openai --model M -j 8\n  \
        glossa run --resume runs/20261129T203018Z_cafe_run           # finish an interrupted run\n  \
        glossa run --retry-errors runs/20261129T203018Z_cafe_run     # redo only the failed calls\n  \
        glossa run --model gpt-4o-mini --batch-out requests.jsonl --out runs/b   # OpenAI Batch API input; no key\n  \
        glossa run --batch-in results.jsonl --resume runs/b                     # check the batch's output file\n  \
        glossa run --shard 0/4 --out runs/s0 ...; glossa merge runs/s0 runs/s1 runs/s2 runs/s3 --out runs/all\n  \
        sbatch --array=0-3 --wrap 'glossa run --shard auto --out runs/exp ...'; glossa merge runs/exp/shard-* --out runs/all\n\n\
        Every call is appended to DIR/calls.jsonl as it finishes; DIR/summary.json and the table come at the end.\n\
        Batch files: --batch-out writes one OpenAI Batch API request line per call (POST /v1/chat/completions, \
        the body a live call sends; with --provider gemini, Gemini batch mode's key and request lines) and \
        DIR/run.json, and makes no call. Submit the file; then --batch-in \
        RESULTS.jsonl --resume DIR checks each output exactly as a live run does and appends the same \
        records to DIR/calls.jsonl (failed requests are recorded as failed calls; --batch-in again with \
        --retry-errors DIR after a batch of them made with --batch-out FILE --retry-errors DIR). A line that \
        is not a result of this run refuses the whole file, naming FILE:LINE. custom_id is \
        RETRIEVER|REPEAT|POST, the retriever and post percent-encoded (% as %25, | as %7C, control characters).\n\
        Shards: --shard I/N (0 <= I < N) keeps the calls whose custom_id's SHA-256 (first 8 bytes, big-endian) \
        mod N is I: the same on every machine, whatever the concurrency; each shard has its own run folder. \
        --shard auto takes I and N from SLURM_ARRAY_TASK_ID/_COUNT (or _MIN/_MAX/_STEP), JOB_COMPLETION_INDEX \
        (N from auto/N or GLOSSA_SHARD_COUNT), AWS_BATCH_JOB_ARRAY_INDEX/_SIZE or CLOUD_RUN_TASK_INDEX/_COUNT \
        (docs/cluster.md).\n\
        Exit codes: 0 every call answered, 1 some calls failed (see DIR/calls.jsonl), 2 bad input, 130 interrupted.")]
    Run(RunArgs),
    /// Merge the run folders of shards (`glossa run --shard I/N`) into one run: calls, summary and table
    #[command(after_help = "Examples:\n  \
        glossa merge runs/shard0 runs/shard1 runs/shard2 --out runs/all\n  \
        glossa merge runs/*_shard*of4_run --out runs/cafe_run --format markdown\n\n\
        The folders must be shards of one experiment: the same glossary, posts and labels (by content), \
        retrievers and their parameters, split, repeats, prompt, provider, model and sampling parameters \
        (their run.json files say); anything else is refused, naming what differs. OUT gets every call \
        once (when a call is in several folders, the record in the later folder wins, as within a \
        calls.jsonl), a run.json without a shard (so --resume OUT makes any calls still missing), \
        summary.json, and the table.\n\
        Exit codes: 0 every call present and answered, 1 some calls failed or are missing, 2 bad input.")]
    Merge(MergeArgs),
    /// Send a run's requests to the OpenAI Batch API (or a compatible one), follow the batches, and record their results
    #[command(after_help = "Examples:\n  \
        glossa run --batch-out requests.jsonl --model gpt-4o-mini --out runs/big   # the run folder (no call, no key)\n  \
        glossa batch submit runs/big          # upload and create the batch(es); runs/big/batches.json records each step\n  \
        glossa batch status runs/big          # each batch's state and request counts (--format json)\n  \
        glossa batch fetch runs/big --wait    # wait, download results and errors, check and record them as --batch-in does\n  \
        glossa batch submit runs/big          # after an expired or cancelled batch: a new batch of only the calls still missing\n  \
        glossa batch submit runs/big --base-url https://my-proxy.example/v1   # Azure OpenAI, a LiteLLM proxy\n\n\
        submit writes the run's missing calls (run.json's settings) to DIR/batches/part-NNN.jsonl, a new file \
        past 50,000 requests or 200 MB (--max-requests, --max-mb), uploads each (purpose=batch) and creates its \
        batch (endpoint /v1/chat/completions, window 24h). Every step is saved to DIR/batches.json at once: run \
        submit again after a crash and it continues, never uploading a recorded file or creating a recorded \
        batch again; requests in a batch not yet fetched are never sent again. The key comes from OPENAI_API_KEY \
        (or run.json's --api-key-env); the base URL from --base-url, else the one submit used, else run.json's, \
        else OpenAI's.\n\
        Exit codes: 0 done (fetch: every call answered), 1 fetch: calls failed or still without a result \
        (batches still running), 2 bad input or a refused request.")]
    Batch(BatchArgs),
    /// Check translations made elsewhere (TMX, XLIFF, PO, line-aligned text, JSONL) against a glossary; no model called
    #[command(after_help = "Examples:\n  \
        glossa check --glossary brand.json delivery.tmx --target-lang de\n  \
        glossa check -g brand.json fr.po --format json > report.json\n  \
        glossa check -g brand.json posts.en.txt --target-file posts.fr.txt\n  \
        glossa check -g g.json pairs.jsonl --labels labels.jsonl --fail-under term_accuracy=0.95\n\n\
        Each segment's source goes through retrieval (--retriever, default `glossa`) exactly as a post does, \
        and its target through the output check: every needed entry's target or one of its forms must stand in it. \
        Needed entries are the label's (--labels: JSONL with `post` = segment id, `needed`, `wrong_sense`), else \
        the entries retrieved; a retrieved entry whose words only stand inside a longer entry's match is \
        `nested_covered` when the longer entry's target is there.\n\
        Inputs (by extension, else by content; --input-format to say): .tmx, .xlf/.xliff (1.2 and 2.x), .po, \
        .jsonl ({\"id\", \"source\", \"target\"}), or a text file of sources with --target-file of translations, line by line.\n\
        The figures: segments ok, exact-match term accuracy (needed terms found / needed) and term \
        consistency (docs/formats.md, \"Term figures\"). --format json prints {\"segments\": [...], \"summary\": {...}} \
        as segments are checked; csv one row per segment; table and markdown the failed segments and the summary.\n\
        Exit codes: 0 every segment ok and every --fail-under bound met, 1 otherwise, 2 bad input \
        (the segments checked before it are still printed).")]
    Check(CheckArgs),
    /// A local web page: translate a post, see the glossary words used and why, keep the glossary
    #[command(after_help = "Examples:\n  \
        glossa serve                                  # http://127.0.0.1:8080/, glossaries/ beside you\n  \
        glossa serve --addr 127.0.0.1:9000 --glossaries ~/shop/glossaries\n  \
        OPENAI_API_KEY=... glossa serve               # offers OpenAI next to the offline provider\n  \
        glossa serve --base-url openai=http://127.0.0.1:11434/v1 --model openai=llama3 --temperature 0 --seed 1\n\n\
        The page edits NAME.json files in --glossaries: every save is validated, written atomically, \
        and the previous version kept in DIR/.backup/. Keys are read from the server's environment and \
        never sent to the page. The JSON API is described in the README.")]
    Serve(ServeArgs),
    /// Score one retriever over a range of one parameter's values (dev split); table + SVG chart
    #[command(after_help = sweep_help())]
    Sweep(SweepArgs),
    /// Compare two saved results (eval JSON or run folders): figure changes, changed posts, p-values
    #[command(after_help = "Examples:\n  \
        glossa diff runs/20261129T203018Z_cafe_eval.json runs/20261130T091500Z_cafe_eval.json\n  \
        glossa diff old.json new.json --retriever fuzzy                 # one retriever, same name in both\n  \
        glossa diff a.json b.json --retriever exact=normalised+fuzzy    # two retrievers with different names\n  \
        glossa diff runs/20261129T203018Z_cafe_run runs/20261130T101010Z_cafe_run --format markdown\n  \
        glossa diff old.json new.json --format html > diff.html   # one offline page, rows filterable\n\n\
        A and B are two eval results (`glossa eval` JSON) or two run folders (`glossa run`; a folder, \
        or its calls.jsonl or summary.json). Retrievers are paired by name (or, when each side has \
        exactly one, with each other). Figures and tests are over the posts present in both.\n\
        Eval: complete, recall, precision, extra, wrong sense; a post changed when it became complete, \
        broke, or its missed or wrong-sense entries changed. Run: posts right, complete retrieval, \
        wrong sense used, failed calls.\n\
        p: a paired randomisation test over posts (each resample swaps A and B on each post with \
        probability 1/2), two-sided, on completeness and recall (run: right and completeness).")]
    Diff(DiffArgs),
    /// Write one offline HTML page of a saved result: eval JSON, run folder or sweep JSON
    #[command(after_help = "Examples:\n  \
        glossa report runs/20261129T203018Z_cafe_eval.json --out report.html   # a result eval saved\n  \
        glossa eval --no-save --format json > result.json && glossa report result.json --out report.html\n  \
        glossa report runs/20261129T203018Z_cafe_run --out run.html\n  \
        glossa report runs/20261129T203018Z_cafe_sweep.json --out sweep.html\n  \
        glossa diff old.json new.json --format html > diff.html\n\n\
        The page holds the summary tables and a row per post (eval: per retriever and post; run: per \
        call) that buttons filter (failing, errors), each with its details: the post with its glossary \
        terms marked, the output with needed targets found and wrong-sense targets leaked (runs), and \
        the entries needed against those retrieved, with how each matched (eval). It opens offline: \
        CSS and script are inline and its Content-Security-Policy loads nothing else. Post texts come \
        from the posts file the result names (--posts FILE when it has moved).")]
    Report(ReportArgs),
    /// Make a glossary from a spreadsheet (TSV/CSV/XLSX/ODS source,target[,sense,aliases]) or a TBX file
    #[command(after_help = "Examples:\n  \
        glossa import terms.tsv --out glossaries/shop.json\n  \
        glossa import terms.csv --out glossaries/shop.json --target-lang fr\n  \
        glossa import terms.tsv --out glossaries/km.json --target-lang Khmer\n  \
        glossa import termbase.tbx --out glossaries/shop.json --source-lang en --target-lang de\n  \
        glossa import terms.tsv > shop.json                       # no --out: JSON on stdout\n  \
        glossa import export.csv --columns source=sourceString,target=targetString,sense=Note\n  \
        glossa import google-terms.csv --source-lang en --target-lang de   # one pair of several languages\n  \
        glossa import terms.xlsx --sheet Glossary --out glossaries/shop.json\n\n\
        Sheets (.tsv, .csv; --from to override): without a header the columns are source, target, and \
        optionally sense and aliases (several separated by `;`), the two-column layout machine-translation \
        services take for glossaries. A header row may name the columns in any order: id, source, target, \
        forms, forbidden, sense, aliases, context_any, context_not, case_sensitive, keep (yes/no cells: the row \
        `US,EE. UU.,yes,` under `source,target,case_sensitive,keep` matches \"US\" only in capitals; \
        `Glossa Café,,,yes` is a name kept as written). A header of two language codes or names (`en,fr`, \
        `English,French`) sets the glossary's languages. Headers are read in any case and spelling \
        (`sourceString`, `Source term`, `targetLang`, `Term [en]`, `translation_fr`); other columns are ignored \
        with a note; --columns source=sourceString,target=targetString picks them by name. A .csv may be \
        separated by `,` `;` or tabs (read from the first rows; --delimiter to force); UTF-16 files with a BOM \
        are read. Blank rows are skipped.\n\
        Workbooks (.xlsx, .xlsm, .xls, .ods): one sheet (the first, or --sheet NAME) read by the sheet rules \
        above; a number cell is read as written (12, 0.5), a date as 2024-03-01, a formula by its value; errors \
        say `terms.xlsx, sheet Glossary, row 7: ...`.\n\
        TBX (.tbx): termEntry/langSet/tig/term (TBX-Basic) or conceptEntry/langSec/termSec/term (TBX v3); \
        the first source-language term is the source, others aliases; the first target-language term the \
        target, others its forms; deprecated, superseded, not recommended or obsolete target terms \
        (administrativeStatus) become the entry's `forbidden` terms; a definition becomes the sense. A file \
        `glossa export --to tbx|tbx3` wrote gives its glossary back whole: name, context, case_sensitive, keep \
        and glossary-wide forbidden words from its `glossa.*` notes.\n\n\
        Every bad row is reported as FILE:LINE: what is wrong, and nothing is written. The result is checked \
        by the same rules as a glossary file before it is written. Exit codes: 0 ok, 2 bad input.")]
    Import(ImportArgs),
    /// Write a glossary as TSV, CSV or TBX (for spreadsheets, machine-translation services and CAT tools)
    #[command(after_help = "Examples:\n  \
        glossa export glossaries/cafe.json --format tsv > cafe.tsv\n  \
        glossa export glossaries/cafe.json --format csv --out cafe.csv --header\n  \
        glossa export glossaries/cafe.json --format tbx --out cafe.tbx\n  \
        glossa export glossaries/cafe.json --to tbx3 -o cafe.tbx && glossa import cafe.tbx   # TBX v3, the same glossary back\n  \
        glossa export glossaries/shop.json --to deepl --out shop.csv          # DeepL glossary entries (CSV)\n  \
        glossa export glossaries/shop.json --to amazon --target-lang de --out shop.csv\n  \
        glossa export glossaries/shop.json --to crowdin --target-lang de -o crowdin.csv   # Crowdin glossary CSV\n\n\
        Columns: source and target; id, forms, forbidden, sense, aliases, context_any, context_not, case_sensitive and keep are added when \
        some entry has them, with a header row naming every column. A plain two-column glossary is \
        written without a header unless --header. `glossa import` reads the result back unchanged.\n\
        TBX (tbx: TBX-Basic in TBX 2008; tbx3: TBX v3): one concept per entry; sense as a definition, \
        aliases as further source terms, forms as admitted and forbidden terms as deprecated target terms; \
        context, case_sensitive and keep as `glossa.*` notes; the glossary-wide forbidden words as a concept \
        of deprecated terms (docs/formats.md, \"TBX mapping\").\n\
        Engines (--to deepl, google, google-sets, amazon, amazon-tsv): one row source,target an entry and one an alias \
        (alias,target) unless it is already a source; what the file cannot carry (sense, context, forms...) is named \
        in one note. A file the engine would refuse (DeepL: a source twice, a term over 1,024 bytes, control \
        characters, over 10 MiB; Amazon: a term over 200 bytes, over 10 MB; Google: over 10M code points) is \
        not written: exit 1, each problem by line and entry; --drop-refused leaves those rows out instead. \
        `glossa lint GLOSSARY --for ENGINE` lists the same.\n\
        Crowdin, Lokalise (--to crowdin, lokalise): their glossary CSV, one row an entry, the sense as the \
        description (Lokalise: case_sensitive, and keep as translatable no); aliases, forms, context and ids are \
        named in one note; `glossa import` reads the file back. Exit codes: 0 written, 1 refused, 2 bad input.")]
    Export(ExportArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    #[command(after_help = "Examples:\n  \
        glossa completions bash > ~/.local/share/bash-completion/completions/glossa\n  \
        glossa completions zsh > ~/.zfunc/_glossa\n  \
        glossa completions fish > ~/.config/fish/completions/glossa.fish")]
    Completions(CompletionsArgs),
    /// Print the manual page (roff), generated from these definitions
    #[command(after_help = "Examples:\n  \
        glossa man > glossa.1 && man ./glossa.1\n  \
        glossa man eval > glossa-eval.1                 # the page of one command")]
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The page of this command (glossa-COMMAND(1)) instead of glossa(1)
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Which labelled posts to score (a library type; its flag words below).
pub use glossa::dataset::SplitChoice;

// Defaults, help and accepted values come from the library's tunables
// table, so they are written once (`retrieve::params`).
#[derive(Debug, Clone, Args)]
pub struct RetrieverArgs {
    #[arg(long, default_value_t = THRESHOLD.default, help = THRESHOLD.flag_help(),
          value_parser = |s: &str| THRESHOLD.parse(s))]
    pub threshold: f64,
    #[arg(long, default_value_t = default_edit_one_from(), help = EDIT_ONE_FROM.flag_help(),
          value_parser = |s: &str| parse_whole(&EDIT_ONE_FROM, s), value_name = "CHARS")]
    pub edit_one_from: u16,
    #[arg(long, default_value_t = default_edit_two_from(), help = EDIT_TWO_FROM.flag_help(),
          value_parser = |s: &str| parse_whole(&EDIT_TWO_FROM, s), value_name = "CHARS")]
    pub edit_two_from: u16,
    #[arg(long, help = LEMMAS.flag_help(), value_name = "FILE")]
    pub lemmas: Option<PathBuf>,
}

/// A whole-number tunable's flag value (the table's range fits a `u16`,
/// which a test checks).
fn parse_whole(t: &Tunable, s: &str) -> Result<u16, BadParam> {
    Ok(t.parse(s)? as u16)
}

impl From<&RetrieverArgs> for glossa::retrieve::Params {
    fn from(args: &RetrieverArgs) -> glossa::retrieve::Params {
        let paths = [(LEMMAS.name, &args.lemmas)];
        glossa::retrieve::Params {
            threshold: args.threshold,
            edit_one_from: usize::from(args.edit_one_from),
            edit_two_from: usize::from(args.edit_two_from),
            text: paths
                .into_iter()
                .filter_map(|(name, path)| {
                    Some((name.to_string(), path.as_ref()?.display().to_string()))
                })
                .collect(),
        }
    }
}

/// A library enum a flag takes, with the word and help of each value: the
/// library's enums are foreign to the binary, so they get this trait and
/// [`choice`]'s parser rather than `clap::ValueEnum` (and nothing below the
/// CLI names clap).
pub trait Choice: Copy + PartialEq + Send + Sync + 'static {
    fn choices() -> Vec<(Self, PossibleValue)>;

    /// The word the flag takes for `self` (for `default_value`).
    fn word(self) -> &'static str;
}

/// The value parser of a [`Choice`] flag: its words (shown by `--help`,
/// completed by the shells) and the value each names.
pub fn choice<T: Choice>() -> impl TypedValueParser<Value = T> {
    let choices = T::choices();
    let words = choices.iter().map(|(_, possible)| possible.clone());
    PossibleValuesParser::new(words).map(move |word| {
        choices
            .iter()
            .find(|(_, possible)| possible.get_name() == word)
            .map(|(value, _)| *value)
            // PossibleValuesParser let only these words through.
            .expect("a word of the choices")
    })
}

macro_rules! choices {
    ($ty:ty { $($variant:ident => $name:literal, $help:literal;)+ }) => {
        impl Choice for $ty {
            fn choices() -> Vec<(Self, PossibleValue)> {
                vec![$((<$ty>::$variant, PossibleValue::new($name).help($help))),+]
            }

            fn word(self) -> &'static str {
                match self {
                    $(<$ty>::$variant => $name),+
                }
            }
        }
    };
}

choices!(glossa::report::Format {
    Table => "table", "Aligned table for the terminal";
    Markdown => "markdown", "GitHub-flavoured Markdown tables";
    Json => "json", "Machine-readable JSON on stdout";
    Csv => "csv", "Comma-separated values, one header row";
});

choices!(glossa::dataset::SplitChoice {
    Dev => "dev", "Posts labelled `dev`: use these for tuning";
    Test => "test", "Posts labelled `test`: report these; never tune on them";
    All => "all", "Every labelled post";
});

choices!(glossa::interchange::SheetFormat {
    Tsv => "tsv", "Tab-separated values";
    Csv => "csv", "Comma-separated values";
    Tbx => "tbx", "TermBase eXchange (XML); export writes TBX-Basic in TBX 2008 (martif)";
    Tbx3 => "tbx3", "TBX v3, ISO 30042:2019 (export; import reads it as tbx)";
    Xlsx => "xlsx", "Excel workbook: .xlsx, .xlsm, .xls (import only; --sheet picks the sheet)";
    Ods => "ods", "OpenDocument spreadsheet (import only; --sheet picks the sheet)";
});

choices!(glossa::interchange::Engine {
    Deepl => "deepl", "DeepL glossary CSV: source,target, no header";
    Google => "google", "Google Cloud Translation unidirectional glossary: source,target, no header";
    GoogleSets => "google-sets", "Google Cloud Translation equivalent term sets: a header of language codes (+ description)";
    Amazon => "amazon", "Amazon Translate custom terminology CSV: a header of language codes";
    AmazonTsv => "amazon-tsv", "Amazon Translate custom terminology TSV";
});

choices!(glossa::interchange::Tms {
    Crowdin => "crowdin", "Crowdin glossary CSV: Term [en], Description [en], Part of speech [en], Term [xx], Description [xx]";
    Lokalise => "lokalise", "Lokalise glossary CSV: term, description, case_sensitive, translatable, forbidden, tags, translation_xx, description_xx";
});

/// `export --to`: every sheet format (`SheetFormat`'s words), the engines,
/// then the translation-management systems.
impl Choice for glossa::interchange::ExportFormat {
    fn choices() -> Vec<(Self, PossibleValue)> {
        use glossa::interchange::{Engine, ExportFormat, SheetFormat, Tms};
        let sheets = SheetFormat::choices()
            .into_iter()
            .map(|(f, p)| (ExportFormat::Sheet(f), p));
        let engines = Engine::choices()
            .into_iter()
            .map(|(e, p)| (ExportFormat::Engine(e), p));
        let systems = Tms::choices()
            .into_iter()
            .map(|(t, p)| (ExportFormat::Tms(t), p));
        sheets.chain(engines).chain(systems).collect()
    }

    fn word(self) -> &'static str {
        match self {
            Self::Sheet(f) => f.word(),
            Self::Engine(e) => e.word(),
            Self::Tms(t) => t.word(),
        }
    }
}

choices!(glossa::eval::PerPost {
    Auto => "auto", "Keep them up to 10,000 posts, then leave them out";
    On => "on", "Always keep them";
    Off => "off", "Leave them out";
});

choices!(glossa::generate::simplify::Simplify {
    Rules => "rules", "Split into sentences on sentence punctuation and line breaks, trimmed";
    Llm => "llm", "One model call with prompts/simplify.v1.md";
    None => "none", "Use the text as it is";
});

fn default_edit_one_from() -> u16 {
    EDIT_ONE_FROM.default as u16
}

fn default_edit_two_from() -> u16 {
    EDIT_TWO_FROM.default as u16
}

/// A glossary with labelled posts: what `eval`, `run` and `sweep` read
/// (the café demo by default).
#[derive(Debug, Args)]
pub struct LabelledSetArgs {
    /// Glossary JSON file [default: the built-in café demo]
    #[arg(long, short = 'g', default_value = DEMO_GLOSSARY, hide_default_value = true)]
    pub glossary: PathBuf,
    /// Posts JSONL file [default: the built-in café demo's]
    #[arg(long, short = 'p', default_value = DEMO_POSTS, hide_default_value = true)]
    pub posts: PathBuf,
    /// Labels JSONL file [default: the built-in café demo's]
    #[arg(long, short = 'l', default_value = DEMO_LABELS, hide_default_value = true)]
    pub labels: PathBuf,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[command(flatten)]
    pub data: LabelledSetArgs,
    /// Retrievers to score, comma-separated; `a+b` is a union, `a|f` a filter; `all` is the reference five (`all,glossa` adds the recommended one)
    #[arg(long, short = 'r', default_value = "all")]
    pub retriever: String,
    #[command(flatten)]
    pub params: RetrieverArgs,
    /// Which labelled posts to score
    #[arg(long, value_parser = choice::<SplitChoice>(), default_value = SplitChoice::All.word())]
    pub split: SplitChoice,
    /// Output format
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
    /// Add a table broken down by tag
    #[arg(long)]
    pub by_tag: bool,
    /// Do not save the JSON result under --runs-dir
    #[arg(long)]
    pub no_save: bool,
    /// Where results are saved
    #[arg(long, default_value = glossa::runs::RUNS_DIR)]
    pub runs_dir: PathBuf,
    /// Compare every pair of retrievers: paired randomisation test over posts on completeness and recall
    #[arg(long)]
    pub compare: bool,
    /// --compare: resamples of the randomisation test
    #[arg(long, default_value_t = glossa::stats::DEFAULT_RESAMPLES, value_parser = clap::value_parser!(u32).range(1..))]
    pub resamples: u32,
    /// --compare: seed of the randomisation test
    #[arg(long, default_value_t = glossa::stats::DEFAULT_SEED)]
    pub seed: u64,
    /// Exit 1 when a ratio falls below its bound: [RETRIEVER:]recall|precision|complete=MIN, comma-separated
    #[arg(long, value_name = "FIGURE=MIN", value_delimiter = ',', value_parser = glossa::gate::parse_under)]
    pub fail_under: Vec<glossa::gate::Bound>,
    /// Exit 1 when a count exceeds its bound: [RETRIEVER:]wrong_sense|extra|missed=MAX, comma-separated
    #[arg(long, value_name = "FIGURE=MAX", value_delimiter = ',', value_parser = glossa::gate::parse_over)]
    pub fail_over: Vec<glossa::gate::Bound>,
    /// Worker threads (default: one per core)
    #[arg(long, short = 'j', default_value_t = 0, hide_default_value = true)]
    pub threads: usize,
    /// Per-post details in the JSON result: auto keeps them up to 10,000 posts
    #[arg(long, value_parser = choice::<glossa::eval::PerPost>(), default_value = glossa::eval::PerPost::Auto.word())]
    pub per_post: glossa::eval::PerPost,
    /// Stream one JSON line per (retriever, post) to this file: the scalable per-post form
    #[arg(long, value_name = "FILE")]
    pub per_post_jsonl: Option<PathBuf>,
    #[command(flatten)]
    pub compiled: CompiledArgs,
    /// Also list the failing posts (incomplete, with what each missed), in every --format
    #[arg(long, value_enum, value_name = "WHAT")]
    pub show: Option<Show>,
}

#[derive(Debug, Args)]
pub struct RetrieveArgs {
    /// The post text; `-` or nothing reads standard input
    pub text: Option<String>,
    /// Glossary JSON file [default: the built-in café demo]
    #[arg(long, short = 'g', default_value = DEMO_GLOSSARY, hide_default_value = true)]
    pub glossary: PathBuf,
    /// Retriever; `a+b` is a union, `a|f` a filter (see `glossa retrievers`)
    #[arg(long, short = 'r', default_value = glossa::retrieve::RECOMMENDED)]
    pub retriever: String,
    #[command(flatten)]
    pub params: RetrieverArgs,
    #[command(flatten)]
    pub compiled: CompiledArgs,
    /// Output format
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
}

/// Whether and from where a command loads its glossary compiled
/// (docs/formats.md, "Compiled glossaries").
#[derive(Debug, Clone, Args)]
pub struct CompiledArgs {
    /// Load only the entries the posts could match (with labelled posts, and those their labels name) from the glossary compiled into the cache folder (built or rebuilt when missing or stale): `auto` for a glossary file of 4 MiB or more and at most one post per 20 kB of it, `always`, or `never` (parse the whole JSON); e.g. `--compiled never` to compare
    #[arg(long = "compiled", value_enum, value_name = "WHEN", default_value_t = CompiledMode::Auto)]
    pub mode: CompiledMode,
    /// Read the glossary compiled into FILE by `glossa compile -o FILE` instead of the cache folder's; refused when FILE was not compiled from the glossary as it is now
    #[arg(long, value_name = "FILE", conflicts_with = "mode")]
    pub index: Option<PathBuf>,
}

/// When a command loads its glossary from the compiled file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompiledMode {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
pub struct CompileArgs {
    /// Glossary JSON file
    #[arg(long, short = 'g')]
    pub glossary: PathBuf,
    /// Write the compiled glossary here instead of the cache folder; commands read it with --index FILE
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The cache folder: the file goes to DIR/compiled/NAME-HASH.glossa-index, where translate, retrieve, eval, run and serve look
    #[arg(long, value_name = "DIR", default_value = glossa::generate::cache::DEFAULT_DIR)]
    pub cache_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct PhrasesArgs {
    /// The text; `-` or nothing reads standard input
    pub text: Option<String>,
    /// Output format (json: an array of every phrase key, in order)
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
}

/// Which model to call and how (shared by `translate` and `run`).
#[derive(Debug, Clone, Args)]
pub struct ProviderArgs {
    /// Provider, or several comma-separated for failover
    #[arg(long, default_value = "offline", help = provider_help())]
    pub provider: String,
    /// Model name (required for openai; gemini defaults to gemini-2.5-flash)
    #[arg(long)]
    pub model: Option<String>,
    /// Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1 for Ollama
    #[arg(long)]
    pub base_url: Option<String>,
    /// Environment variable that holds the API key
    #[arg(long, help = api_key_env_help())]
    pub api_key_env: Option<String>,
    /// Sampling temperature
    #[arg(long)]
    pub temperature: Option<f32>,
    /// Sampling seed, where the provider supports one
    #[arg(long)]
    pub seed: Option<u64>,
    /// Most tokens in a reply, or `none` for no cap (default: from the post's length)
    #[arg(long, value_name = "N|none", value_parser = parse_max_tokens, help = max_tokens_help())]
    pub max_tokens: Option<MaxTokens>,
    /// Request field for --max-tokens (OpenAI-compatible APIs): max_tokens or max_completion_tokens [default: max_completion_tokens for models named o1…, o3…, o4…, gpt-5…; max_tokens otherwise]
    #[arg(long, value_name = "FIELD")]
    pub max_tokens_field: Option<glossa::generate::provider::MaxTokensField>,
    /// Seconds before one attempt is abandoned
    #[arg(long, default_value_t = glossa::generate::provider::DEFAULT_TIMEOUT.as_secs_f64())]
    pub timeout: f64,
    /// Attempts per provider before failing over (429, 5xx, timeouts are retried with backoff)
    #[arg(long, default_value_t = glossa::generate::retry::DEFAULT_ATTEMPTS)]
    pub attempts: u32,
    /// Do not read or write the response cache
    #[arg(long)]
    pub no_cache: bool,
    /// Where model replies are cached
    #[arg(long, default_value = glossa::generate::cache::DEFAULT_DIR)]
    pub cache_dir: PathBuf,
    /// How the text is simplified before retrieval and translation
    #[arg(long, value_parser = choice::<glossa::generate::simplify::Simplify>(), default_value = glossa::generate::simplify::Simplify::Rules.word())]
    pub simplify: glossa::generate::simplify::Simplify,
    /// Prompt template file instead of the built-in prompts/translate.v1.md
    #[arg(long)]
    pub prompt: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TranslateArgs {
    /// The post text; `-` or nothing reads standard input (or use --file)
    pub text: Option<String>,
    /// Read the post from this file
    #[arg(long, conflicts_with = "text")]
    pub file: Option<PathBuf>,
    /// Translate every post of this file, in order: one post per line, or JSONL with `id` and `text`
    #[arg(long, value_name = "FILE", conflicts_with_all = ["text", "file"])]
    pub posts: Option<PathBuf>,
    /// With --posts: write the translations to this file instead of standard output
    #[arg(long, short = 'o', value_name = "FILE", requires = "posts", conflicts_with_all = ["text", "file"])]
    pub out: Option<PathBuf>,
    /// With --posts: model calls in flight at once
    #[arg(long, short = 'j', default_value_t = 4)]
    pub concurrency: usize,
    /// Glossary JSON file [default: the built-in café demo]
    #[arg(long, short = 'g', default_value = DEMO_GLOSSARY, hide_default_value = true)]
    pub glossary: PathBuf,
    /// Retriever (see `glossa retrievers`)
    #[arg(long, short = 'r', default_value = glossa::retrieve::RECOMMENDED)]
    pub retriever: String,
    #[command(flatten)]
    pub params: RetrieverArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    #[command(flatten)]
    pub compiled: CompiledArgs,
    /// Follow-up turns at most when the check finds a problem (a target missing, a sense that does not fit, the prompt copied back); 0: none
    #[arg(long, value_name = "N", default_value_t = glossa::generate::pipeline::DEFAULT_REPAIR_TRANSLATE)]
    pub repair: u32,
    /// Numbers, prices, times, dates, URLs, e-mails, @handles, #hashtags, emoji and {placeholders} of the post that the output lost or changed: `warn` lists them, `fail` also exits 1, `off` skips the check (e.g. "£3.50" given as "£3.05")
    #[arg(long, value_name = "MODE", default_value_t = Mode::Warn, value_parser = invariants_mode())]
    pub invariants: Mode,
    /// Output format (json: the whole trace; csv: the entries, the translation in its last column)
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
    /// Print only the translation (`glossa translate -q "…" > post.txt`); a problem the check found is one line on stderr
    #[arg(long, short = 'q', conflicts_with_all = ["format", "posts"])]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub data: LabelledSetArgs,
    /// Retrievers, comma-separated (`a+b` is a union; `all` the reference five)
    #[arg(long, short = 'r', default_value = glossa::retrieve::RECOMMENDED)]
    pub retriever: String,
    #[command(flatten)]
    pub params: RetrieverArgs,
    /// Which labelled posts to run
    #[arg(long, value_parser = choice::<SplitChoice>(), default_value = SplitChoice::All.word())]
    pub split: SplitChoice,
    #[command(flatten)]
    pub compiled: CompiledArgs,
    /// Runs per (retriever, post): real samples, never served from one another's cache
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Model calls in flight at once
    #[arg(long, short = 'j', default_value_t = 4)]
    pub concurrency: usize,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Run folder (default runs/<UTC timestamp>_<suite>_run)
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue the interrupted run in this folder (its settings are reused)
    #[arg(long, conflicts_with_all = ["out", "retry_errors"])]
    pub resume: Option<PathBuf>,
    /// Redo only the failed calls of the run in this folder
    #[arg(long, conflicts_with = "out")]
    pub retry_errors: Option<PathBuf>,
    /// Write the calls as an OpenAI Batch API input file (JSONL) instead of calling a model: needs --model, no key
    #[arg(long, value_name = "FILE.jsonl", conflicts_with = "batch_in")]
    pub batch_out: Option<PathBuf>,
    /// Check the calls' outputs from an OpenAI Batch API output (or error) file instead of calling a model; repeatable
    #[arg(long, value_name = "RESULTS.jsonl")]
    pub batch_in: Vec<PathBuf>,
    /// Stop the run after this many calls in a row fail with the same 400/404 error (0: never)
    #[arg(long, value_name = "N", default_value_t = glossa::batch::DEFAULT_STOP_AFTER)]
    pub stop_after_errors: u32,
    /// Price table (JSON: {"MODEL": {"input": USD, "output": USD}} per million tokens) to show the run's cost
    #[arg(long, value_name = "FILE.json")]
    pub prices: Option<PathBuf>,
    /// Make only shard I of N (0-based) of the calls, for N machines; `glossa merge` joins the run folders. `auto` (or `auto/N`) reads I and N from a job array's environment (Slurm, Kubernetes Indexed Job, AWS Batch, Cloud Run) and needs --out DIR: the task writes DIR/shard-IofN, and a rerun of the task resumes it
    #[arg(long, value_name = "I/N|auto", conflicts_with_all = ["resume", "retry_errors"])]
    pub shard: Option<glossa::run_dir::shard::ShardArg>,
    /// Most calls (retrievers x repeats x posts) a run may hold, also when resumed; more is refused as a likely typo
    #[arg(long, value_name = "N", default_value_t = glossa::limits::DEFAULT_MAX_CALLS)]
    pub max_calls: u64,
    /// Output check: `shared` (a needed target counts wherever it stands, one place serves every entry), `strict` (each needed entry needs a place of its own) or `stem` (as shared, and words stemming like the target's count; needs a Snowball stemmer for the target language)
    #[arg(long, default_value = "shared", conflicts_with_all = ["resume", "retry_errors"])]
    pub check: glossa::generate::check::CheckMode,
    /// Follow-up turns at most per call when the label-free check finds a problem (a retrieved target missing, a sense the glossary excludes, the prompt copied back); the summary shows first pass and after repair side by side
    #[arg(long, value_name = "N", default_value_t = glossa::generate::pipeline::DEFAULT_REPAIR_RUN, conflicts_with_all = ["resume", "retry_errors"])]
    pub repair: u32,
    /// Numbers, prices, times, dates, URLs, e-mails, @handles, #hashtags, emoji and {placeholders} of the post that the output lost or changed: counted in an "Invariants failed" column (`warn`), also failing the post (`fail`), or not checked (`off`)
    #[arg(long, value_name = "MODE", default_value_t = Mode::Warn, value_parser = invariants_mode(), conflicts_with_all = ["resume", "retry_errors"])]
    pub invariants: Mode,
    /// Output format of the summary
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
    /// Also list the failing posts (a call not right: missing, leaked, error), in every --format
    #[arg(long, value_enum, value_name = "WHAT")]
    pub show: Option<Show>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The translations to check: TMX, XLIFF, PO, JSONL, or the sources of a line-aligned pair (with --target-file)
    pub file: PathBuf,
    /// Glossary JSON file
    #[arg(long, short = 'g')]
    pub glossary: PathBuf,
    /// The translations of a line-aligned pair: line N translates line N of FILE
    #[arg(long, value_name = "FILE")]
    pub target_file: Option<PathBuf>,
    /// The format of FILE: tmx, xliff, po, lines, jsonl [default: from its extension, else its content]
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<glossa::interchange::segments::SegmentFormat>,
    /// Source language of a TMX or XLIFF file (a TMX's source side, or a check that an XLIFF's matches) [default: the file's own]
    #[arg(long, value_name = "LANG")]
    pub source_lang: Option<String>,
    /// Target language: the side of a TMX with several to read, a check that an XLIFF's matches, the stemmer of --check stem [default: the file's own; the glossary's for the stemmer]
    #[arg(long, value_name = "LANG")]
    pub target_lang: Option<String>,
    /// Retriever run on each source (see `glossa retrievers`)
    #[arg(long, short = 'r', default_value = glossa::retrieve::RECOMMENDED)]
    pub retriever: String,
    #[command(flatten)]
    pub params: RetrieverArgs,
    /// Labels JSONL: per segment id (`post`), the entries `needed` and `wrong_sense` [default: the entries retrieved are needed]
    #[arg(long, short = 'l', value_name = "FILE")]
    pub labels: Option<PathBuf>,
    /// Output check: shared, strict or stem (as `glossa run --check`)
    #[arg(long, default_value = "shared")]
    pub check: glossa::generate::check::CheckMode,
    /// Numbers, prices, times, dates, URLs, handles, emoji and placeholders of the source kept in the translation: `warn` lists the ones missing or changed, `fail` also fails their segment, `off` skips the check
    #[arg(long, value_name = "MODE", default_value_t = Mode::Warn, value_parser = invariants_mode())]
    pub invariants: Mode,
    /// Exit 1 unless each figure is at least VALUE: ok, term_accuracy, consistency (0.95 or 95%), comma-separated
    #[arg(long, value_name = "FIGURE=VALUE", value_delimiter = ',')]
    pub fail_under: Vec<glossa::qa::CheckBound>,
    /// Output format: table and markdown list the failed segments; json and csv every segment
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Run folders to merge (shards of one run)
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The merged run folder (must not hold a run yet)
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Price table (as for `glossa run --prices`) to show the merged run's cost
    #[arg(long, value_name = "FILE.json")]
    pub prices: Option<PathBuf>,
    /// Most calls (retrievers x repeats x posts) a run may hold, as for `glossa run`
    #[arg(long, value_name = "N", default_value_t = glossa::limits::DEFAULT_MAX_CALLS)]
    pub max_calls: u64,
    /// Output format of the summary
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Glossary JSON file to check [default: the built-in café demo]
    #[arg(default_value = DEMO_GLOSSARY, hide_default_value = true)]
    pub glossary: PathBuf,
    /// Also propose aliases (synonyms) from WordNet, in each entry's sense; nothing is changed
    #[arg(long)]
    pub suggest_aliases: bool,
    /// WordNet data folder (index.noun, data.noun, ...) [default: $WNSEARCHDIR or /usr/share/wordnet]
    #[arg(long, value_name = "DIR")]
    pub wordnet: Option<PathBuf>,
    /// Sense domain for --suggest-aliases: `auto`, `any`, or WordNet lexicographer files (noun.food, or just food)
    #[arg(long, default_value = "auto")]
    pub domain: String,
    /// Also check the limits of an MT engine's glossary file (what `glossa export --to ENGINE` would write)
    #[arg(long = "for", value_parser = choice::<glossa::interchange::Engine>(), value_name = "ENGINE")]
    pub engine: Option<glossa::interchange::Engine>,
    /// Output format
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; beyond 127.0.0.1 anyone who can reach it can change the glossaries
    #[arg(long, default_value = glossa::serve::DEFAULT_ADDR)]
    pub addr: String,
    /// Also answer requests addressed to NAME (repeatable); otherwise only loopback names and the --addr address are answered, against DNS rebinding
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// Folder of the glossaries the page lists and edits (NAME.json)
    #[arg(long, default_value = "glossaries", value_name = "DIR")]
    pub glossaries: PathBuf,
    /// Retriever the page uses (see `glossa retrievers`)
    #[arg(long, short = 'r', default_value = glossa::retrieve::RECOMMENDED)]
    pub retriever: String,
    #[command(flatten)]
    pub params: RetrieverArgs,
    /// Read a glossary from its file compiled into the cache folder (built on first use, rebuilt when the glossary changes), loading per request only the entries the post could match: `auto` for glossary files of 4 MiB or more, `always`, or `never` (parse the whole JSON)
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = CompiledMode::Auto)]
    pub compiled: CompiledMode,
    /// A provider's model, as PROVIDER=MODEL (repeatable)
    #[arg(long = "model", value_name = "PROVIDER=MODEL", value_parser = provider_value, help = serve_model_help())]
    pub models: Vec<(String, String)>,
    /// A provider's base URL, as PROVIDER=URL, e.g. openai=http://127.0.0.1:11434/v1 for Ollama (offered without a key)
    #[arg(long = "base-url", value_name = "PROVIDER=URL", value_parser = provider_value)]
    pub base_urls: Vec<(String, String)>,
    /// The variable holding a provider's key, as PROVIDER=VAR (repeatable)
    #[arg(long = "api-key-env", value_name = "PROVIDER=VAR", value_parser = provider_value, help = serve_key_help())]
    pub api_key_envs: Vec<(String, String)>,
    /// Seconds before one model attempt is abandoned
    #[arg(long, default_value_t = glossa::generate::provider::DEFAULT_TIMEOUT.as_secs_f64())]
    pub timeout: f64,
    /// Sampling temperature of the model providers (0: the same post gives the same translation)
    #[arg(long)]
    pub temperature: Option<f32>,
    /// Sampling seed of the model providers, where supported
    #[arg(long)]
    pub seed: Option<u64>,
    /// Most tokens in a reply, or `none` for no cap (default: from the post's length)
    #[arg(long, value_name = "N|none", value_parser = parse_max_tokens, help = max_tokens_help())]
    pub max_tokens: Option<MaxTokens>,
    /// Where model replies are cached
    #[arg(long, default_value = glossa::generate::cache::DEFAULT_DIR)]
    pub cache_dir: PathBuf,
    /// Do not read or write the reply cache
    #[arg(long)]
    pub no_cache: bool,
    /// Do not log a line per request on stderr
    #[arg(long)]
    pub quiet: bool,
    /// Seconds a request body has to arrive (default 10). Hidden: for the
    /// tests of stalled clients, which cannot wait 10 s.
    #[arg(long, hide = true, value_name = "SECONDS")]
    pub body_timeout: Option<f64>,
}

/// `--max-tokens`: a number of tokens, or `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokens {
    Limit(u32),
    /// `none`: no cap at all (the server's own default).
    Unlimited,
}

impl MaxTokens {
    /// The library's settings for the flag: `(max_tokens, max_tokens_auto)`;
    /// not given, the cap from the post's length.
    pub fn settings(flag: Option<MaxTokens>) -> (Option<u32>, Option<provider::LengthCap>) {
        match flag {
            None => (None, Some(provider::LengthCap::DEFAULT)),
            Some(MaxTokens::Limit(n)) => (Some(n), None),
            Some(MaxTokens::Unlimited) => (None, None),
        }
    }
}

fn parse_max_tokens(s: &str) -> Result<MaxTokens, String> {
    match s.trim() {
        "none" => Ok(MaxTokens::Unlimited),
        n => match n.parse::<u32>() {
            Ok(0) => Err("0 allows no reply; give a positive number, or `none` for no cap".into()),
            Ok(n) => Ok(MaxTokens::Limit(n)),
            Err(_) => Err(format!(
                "`{n}` is not a number of tokens: expected a positive whole number or `none`"
            )),
        },
    }
}

/// `--max-tokens`' help, with the default cap's formula.
fn max_tokens_help() -> String {
    format!(
        "Most tokens in a reply, or `none` for no cap [default: {}; no default cap for \
         reasoning models (o1…, gpt-5…) and gemini, whose thinking counts against it]",
        provider::LengthCap::DEFAULT
    )
}

/// `--provider`'s help, from the provider table.
fn provider_help() -> String {
    format!(
        "Provider, or several comma-separated for failover: {}",
        provider::names()
    )
}

/// `--api-key-env`'s help, from the provider table.
fn api_key_env_help() -> String {
    format!(
        "Environment variable that holds the API key (default {})",
        provider::key_vars()
    )
}

/// `serve --model`'s help: every provider with a default model.
fn serve_model_help() -> String {
    let defaults = provider::PROVIDERS
        .iter()
        .filter_map(|kind| Some(format!("{}={}", kind.name, kind.default_model?)));
    format!(
        "A provider's model, as PROVIDER=MODEL (repeatable) [defaults: {}]",
        defaults.collect::<Vec<_>>().join(", ")
    )
}

/// `serve --api-key-env`'s help: which providers are offered when.
fn serve_key_help() -> String {
    let defaults = provider::PROVIDERS
        .iter()
        .filter_map(|kind| Some(format!("{}={}", kind.name, kind.key_var?)));
    format!(
        "The variable holding a provider's key, as PROVIDER=VAR (repeatable); \
         a provider is offered when its variable is set [defaults: {}]",
        defaults.collect::<Vec<_>>().join(", ")
    )
}

/// `PROVIDER=VALUE`, naming a registered provider.
fn provider_value(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected PROVIDER=VALUE, got `{s}`"))?;
    let (name, value) = (name.trim(), value.trim());
    if provider::kind(name).is_none() {
        return Err(format!(
            "unknown provider `{name}` (known: {})",
            provider::names()
        ));
    }
    if value.is_empty() {
        return Err(format!("no value after `{name}=`"));
    }
    Ok((name.to_string(), value.to_string()))
}

const SWEEP_HELP: &str = "Examples:\n  \
    glossa sweep --retriever fuzzy --param threshold --from 0.5 --to 1.0 --step 0.05\n  \
    glossa sweep --retriever edit --param edit_one_from --from 2 --to 8 --step 1\n  \
    glossa sweep --retriever normalised+fuzzy --values 0.7,0.75,0.8 --format json --no-save\n\n\
    Each value is scored exactly as `glossa eval --retriever R --PARAM VALUE --split dev` would score it \
    (the other parameters from their flags). The JSON goes to runs/<UTC timestamp>_<suite>_sweep.json and \
    the chart beside it (.svg): recall, precision and the share of complete posts (left axis), wrong-sense \
    entries (right axis), the default value dashed. --no-save writes neither; --svg FILE writes the chart there.\n\
    Tune on dev, then report the chosen value once on test: glossa eval --split test --threshold V.";

/// The sweep help: examples, then every parameter that can be swept.
fn sweep_help() -> String {
    format!("{SWEEP_HELP}\n\n{}", glossa::sweep::params_help())
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub data: LabelledSetArgs,
    /// The retriever to score (one spec: `a+b` is a union, `a|f` a filter)
    #[arg(long, short = 'r', default_value = "fuzzy")]
    pub retriever: String,
    /// The numeric parameter to vary (see --list-params)
    #[arg(long, default_value = THRESHOLD.name)]
    pub param: String,
    /// List the parameters --param accepts (default, accepted values, default range) and exit
    #[arg(long)]
    pub list_params: bool,
    /// First value
    #[arg(long, allow_negative_numbers = true, conflicts_with = "values")]
    pub from: Option<f64>,
    /// Last value (included)
    #[arg(long, allow_negative_numbers = true, conflicts_with = "values")]
    pub to: Option<f64>,
    /// Step between values
    #[arg(long, conflicts_with = "values")]
    pub step: Option<f64>,
    /// Explicit values instead of --from/--to/--step, comma-separated
    #[arg(long, value_delimiter = ',')]
    pub values: Vec<f64>,
    /// The other parameters (the swept one is overridden)
    #[command(flatten)]
    pub params: RetrieverArgs,
    /// Which labelled posts to score (tune on dev)
    #[arg(long, value_parser = choice::<SplitChoice>(), default_value = SplitChoice::Dev.word())]
    pub split: SplitChoice,
    /// Output format
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
    /// Save neither the JSON nor the chart under --runs-dir
    #[arg(long)]
    pub no_save: bool,
    /// Where results are saved
    #[arg(long, default_value = glossa::runs::RUNS_DIR)]
    pub runs_dir: PathBuf,
    /// Also write the SVG chart to this file (even with --no-save)
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The earlier result: an eval JSON file or a run folder
    pub a: PathBuf,
    /// The later result, of the same kind
    pub b: PathBuf,
    /// Only this retriever (same name in both), or A_NAME=B_NAME
    #[arg(long, short = 'r')]
    pub retriever: Option<String>,
    /// Resamples of the randomisation test
    #[arg(long, default_value_t = glossa::stats::DEFAULT_RESAMPLES, value_parser = clap::value_parser!(u32).range(1..))]
    pub resamples: u32,
    /// Seed of the randomisation test
    #[arg(long, default_value_t = glossa::stats::DEFAULT_SEED)]
    pub seed: u64,
    /// Output format (html: one offline page, see `glossa report`)
    #[arg(long, short = 'f', value_enum, default_value_t = DiffFormat::Table)]
    pub format: DiffFormat,
}

/// `diff --format`: the table formats, or one HTML page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Aligned table for the terminal
    Table,
    /// GitHub-flavoured Markdown tables
    Markdown,
    /// Machine-readable JSON on stdout
    Json,
    /// Comma-separated values, one header row
    Csv,
    /// One offline HTML page on stdout: the figures and every post, filterable
    Html,
}

impl DiffFormat {
    /// The table format, or `None` for HTML.
    pub fn table_format(self) -> Option<Format> {
        match self {
            DiffFormat::Table => Some(Format::Table),
            DiffFormat::Markdown => Some(Format::Markdown),
            DiffFormat::Json => Some(Format::Json),
            DiffFormat::Csv => Some(Format::Csv),
            DiffFormat::Html => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The saved result: an eval JSON file (`glossa eval --format json`), a run folder, or a sweep JSON file
    pub result: PathBuf,
    /// Where to write the page (default: standard output)
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The posts file, for their texts, when the one the result names has moved
    #[arg(long, value_name = "FILE")]
    pub posts: Option<PathBuf>,
}

/// `--show`: extra tables after the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Show {
    /// The posts that failed: eval, incomplete for a retriever; run, a call not right
    Failing,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The file to read: .tsv, .csv, .tbx, .xlsx/.xlsm/.xls or .ods
    pub file: PathBuf,
    /// The workbook sheet to read (xlsx, ods) [default: the first]
    #[arg(long, value_name = "NAME")]
    pub sheet: Option<String>,
    /// Where to write the glossary JSON (default: standard output)
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// The file's format, when its extension does not say
    #[arg(long, value_parser = choice::<glossa::interchange::SheetFormat>())]
    pub from: Option<glossa::interchange::SheetFormat>,
    /// Glossary name (default: the title of a TBX file glossa exported, else the --out file name, else the input's)
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Language of the sources: a code, locale or English name (default en; for TBX, which terms are sources)
    #[arg(long, value_name = "LANG")]
    pub source_lang: Option<String>,
    /// Language of the targets: a code, locale or English name (`km`, `km_KH`, `Khmer`; written as `km`). Default: from a language header or the TBX file; else none, with a warning
    #[arg(long, value_name = "LANG")]
    pub target_lang: Option<String>,
    /// Pick a sheet's columns by their header names (any case), overriding what glossa reads from the header: e.g. source=sourceString,target=targetString,sense=Note
    #[arg(long, value_name = "FIELD=COLUMN,...", value_parser = parse_columns_flag)]
    pub columns: Option<ColumnChoice>,
    /// A sheet's delimiter: comma, semicolon or tab (default: tab for .tsv/.txt; for .csv, read from the first rows)
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// Overwrite --out if it exists
    #[arg(long)]
    pub force: bool,
}

/// `--columns`: (field, header name) pairs.
#[derive(Debug, Clone)]
pub struct ColumnChoice(pub Vec<(String, String)>);

fn parse_columns_flag(s: &str) -> Result<ColumnChoice, String> {
    glossa::interchange::parse_columns(s).map(ColumnChoice)
}

fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s.to_ascii_lowercase().as_str() {
        "," | "comma" => Ok(b','),
        ";" | "semicolon" => Ok(b';'),
        "\t" | "\\t" | "tab" => Ok(b'\t'),
        _ => Err(format!("`{s}`: write comma, semicolon or tab (or , ;)")),
    }
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Glossary JSON file [default: the built-in café demo]
    #[arg(default_value = DEMO_GLOSSARY, hide_default_value = true)]
    pub glossary: PathBuf,
    /// tsv, csv, tbx (TBX-Basic, TBX 2008) or tbx3 (TBX v3): forms as admitted terms, forbidden terms as deprecated ones; or an MT engine's glossary file: deepl, google, google-sets, amazon, amazon-tsv; or a glossary CSV for Crowdin or Lokalise (crowdin, lokalise), e.g. `glossa export shop.json --to crowdin --target-lang de -o crowdin.csv`
    #[arg(long, short = 'f', visible_alias = "to", value_parser = choice::<glossa::interchange::ExportFormat>(),
          default_value = glossa::interchange::ExportFormat::Sheet(glossa::interchange::SheetFormat::Tsv).word())]
    pub format: glossa::interchange::ExportFormat,
    /// Write here instead of standard output
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Write a header row even for a plain two-column glossary
    #[arg(long)]
    pub header: bool,
    /// Language of the targets when the glossary names none (or another): a code, locale or English name
    #[arg(long, value_name = "LANG")]
    pub target_lang: Option<String>,
    /// Language of the sources, instead of the glossary's
    #[arg(long, value_name = "LANG")]
    pub source_lang: Option<String>,
    /// For an engine's file: leave out the rows the engine would refuse (each listed on stderr) instead of writing nothing
    #[arg(long)]
    pub drop_refused: bool,
}

/// `--invariants off|warn|fail`, its values listed in help and completions.
fn invariants_mode() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Mode::NAMES)
        .map(|s| s.parse::<Mode>().expect("a listed invariants mode parses"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use glossa::retrieve::{Params, TUNABLE};

    #[test]
    fn retriever_flags_take_default_and_help_from_the_tunables_table() {
        let cli = Cli::command();
        let eval = cli.find_subcommand("eval").expect("eval");
        for t in TUNABLE.iter().filter(|t| t.kind.is_number()) {
            let flag = eval
                .get_arguments()
                .find(|a| a.get_id() == t.name)
                .unwrap_or_else(|| panic!("no flag for tunable {}", t.name));
            let default: Vec<f64> = flag
                .get_default_values()
                .iter()
                .map(|v| v.to_str().unwrap().parse().unwrap())
                .collect();
            assert_eq!(default, [t.default], "{}", t.name);
            assert_eq!(
                flag.get_help().map(ToString::to_string),
                Some(t.flag_help())
            );
            if t.kind == glossa::retrieve::ParamKind::Integer {
                assert!(t.max <= f64::from(u16::MAX), "{} is read as a u16", t.name);
            }
        }
        // No flag given: the same numbers as `Params::default()`.
        let Command::Eval(args) = Cli::try_parse_from(["glossa", "eval"]).unwrap().command else {
            panic!("eval")
        };
        assert_eq!(Params::from(&args.params), Params::default());
        // A path parameter is a flag too, with the table's help, no default.
        for t in TUNABLE.iter().filter(|t| !t.kind.is_number()) {
            let flag = eval.get_arguments().find(|a| a.get_id() == t.name);
            let flag = flag.unwrap_or_else(|| panic!("no flag for parameter {}", t.name));
            assert_eq!(
                flag.get_help().map(ToString::to_string),
                Some(t.flag_help())
            );
            assert!(flag.get_default_values().is_empty(), "{}", t.name);
        }
        let Command::Eval(args) =
            Cli::try_parse_from(["glossa", "eval", "--lemmas", "my lemmas.tsv"])
                .unwrap()
                .command
        else {
            panic!("eval")
        };
        let params = Params::from(&args.params);
        assert_eq!(
            params.path("lemmas"),
            Some(std::path::Path::new("my lemmas.tsv"))
        );
    }

    #[test]
    fn retriever_flags_check_values_against_the_table() {
        let err = Cli::try_parse_from(["glossa", "eval", "--threshold", "1.5"]).unwrap_err();
        assert!(err.to_string().contains("outside [0, 1]"), "{err}");
        let err = Cli::try_parse_from(["glossa", "eval", "--edit-two-from", "2.5"]).unwrap_err();
        assert!(err.to_string().contains("whole numbers"), "{err}");
    }

    #[test]
    fn serve_caps_replies_by_the_post_unless_max_tokens_none_lifts_the_cap() {
        let settings = |argv: &[&str]| {
            let Command::Serve(args) = Cli::try_parse_from(argv).unwrap().command else {
                panic!("serve")
            };
            MaxTokens::settings(args.max_tokens)
        };
        let by_post = (None, Some(glossa::generate::provider::LengthCap::DEFAULT));
        assert_eq!(settings(&["glossa", "serve"]), by_post);
        assert_eq!(
            settings(&["glossa", "serve", "--max-tokens", "none"]),
            (None, None)
        );
        assert_eq!(
            settings(&["glossa", "serve", "--max-tokens", "64"]),
            (Some(64), None)
        );
    }

    #[test]
    fn library_enums_take_their_words_and_default_as_flags() {
        let Command::Export(args) =
            Cli::try_parse_from(["glossa", "export", "g.json", "--to", "google-sets"])
                .unwrap()
                .command
        else {
            panic!("export")
        };
        assert_eq!(
            args.format,
            glossa::interchange::ExportFormat::Engine(glossa::interchange::Engine::GoogleSets)
        );
        let Command::Eval(args) = Cli::try_parse_from(["glossa", "eval"]).unwrap().command else {
            panic!("eval")
        };
        assert_eq!((args.format, args.split), (Format::Table, SplitChoice::All));
        let err = Cli::try_parse_from(["glossa", "eval", "-f", "yaml"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("[possible values: table, markdown, json, csv]"),
            "{err}"
        );
        // Every word names one value and back.
        for (value, possible) in glossa::interchange::ExportFormat::choices() {
            assert_eq!(value.word(), possible.get_name());
        }
    }
}

#[derive(Debug, Args)]
pub struct BatchArgs {
    #[command(subcommand)]
    pub action: BatchAction,
}

#[derive(Debug, Subcommand)]
pub enum BatchAction {
    /// Upload the run's missing calls and create their batch(es); resumable
    #[command(after_help = "Example:\n  glossa batch submit runs/big --max-requests 10000")]
    Submit(BatchSubmitArgs),
    /// Each batch's state and request counts, as the service reports them now
    #[command(after_help = "Example:\n  glossa batch status runs/big --format json")]
    Status(BatchStatusArgs),
    /// Download finished batches' results and errors and record them in calls.jsonl (as `run --batch-in`)
    #[command(
        after_help = "Example:\n  glossa batch fetch runs/big --wait --poll 300\n\n\
        Exit codes: 0 every call of the run answered, 1 calls failed or still without a result, 2 bad input."
    )]
    Fetch(BatchFetchArgs),
}

#[derive(Debug, Args)]
pub struct BatchService {
    /// The run folder (made by `glossa run --batch-out FILE --out DIR`)
    pub dir: PathBuf,
    /// Base URL of the batch service: OpenAI-compatible (Azure OpenAI, a LiteLLM proxy), or the Gemini API's (ending in its version, as for --provider gemini) [default: the one submit used, else run.json's, else https://api.openai.com/v1 or https://generativelanguage.googleapis.com/v1beta]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
}

#[derive(Debug, Args)]
pub struct BatchSubmitArgs {
    #[command(flatten)]
    pub service: BatchService,
    /// Send the calls whose latest record failed, not the missing ones
    #[arg(long)]
    pub retry_errors: bool,
    /// Most requests in one batch file [default: OpenAI's limit, 50,000; Gemini: 100,000]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_requests: Option<u64>,
    /// Most megabytes (10^6 bytes) in one batch file [default: OpenAI's limit, 200; Gemini: 1000, half its 2 GB]
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_mb: Option<u64>,
}

#[derive(Debug, Args)]
pub struct BatchStatusArgs {
    #[command(flatten)]
    pub service: BatchService,
    /// Output format
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct BatchFetchArgs {
    #[command(flatten)]
    pub service: BatchService,
    /// Wait until every batch has finished (asking every --poll seconds)
    #[arg(long)]
    pub wait: bool,
    /// Seconds between two questions with --wait
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub poll: f64,
    /// Price table (as for `glossa run`) to show the run's cost
    #[arg(long, value_name = "FILE.json")]
    pub prices: Option<PathBuf>,
    /// Output format of the summary
    #[arg(long, short = 'f', value_parser = choice::<Format>(), default_value = Format::Table.word())]
    pub format: Format,
}
