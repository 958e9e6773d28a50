//! Progress on stderr for long commands. indicatif draws only when stderr
//! is a terminal, so pipes, files and tests see nothing.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Below this many items nothing is drawn: a short run would only flicker.
const QUIET_FOR: u64 = 10_000;

/// A count of `what` done so far (the total is not known while a stream is
/// read). Call [`tick`] per item.
pub fn counter(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template(&format!("{{spinner}} {{human_pos}} {what} ({{elapsed}})"))
            .expect("valid progress template"),
    );
    bar
}

/// One more item; the counter shows itself once the run is long enough.
pub fn tick(bar: &ProgressBar) {
    bar.inc(1);
    if bar.position() == QUIET_FOR {
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }
}
