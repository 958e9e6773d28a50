//! Progress on stderr for long commands: drawn only on a terminal, and
//! only once the work has lasted a second (a short run would flicker).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const QUIET_FOR: Duration = Duration::from_secs(1);

pub struct Progress {
    bar: ProgressBar,
    shown: AtomicBool,
}

impl Progress {
    /// A count of `what` done so far, for a stream of unknown length.
    pub fn counter(what: &str) -> Progress {
        Progress::new(
            None,
            &format!("{{spinner}} {{human_pos}} {what} ({{elapsed}})"),
        )
    }

    /// `len` steps of `what`, with a bar and the time left.
    pub fn steps(len: usize, what: &str) -> Progress {
        Progress::new(
            Some(len as u64),
            &format!("{{bar:30}} {{pos}}/{{len}} {what}, ETA {{eta}}"),
        )
    }

    fn new(len: Option<u64>, template: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::hidden());
        bar.set_style(ProgressStyle::with_template(template).expect("valid progress template"));
        Progress {
            bar,
            shown: AtomicBool::new(false),
        }
    }

    /// One more done; past a second, the progress shows itself (indicatif
    /// draws nothing when stderr is not a terminal).
    pub fn tick(&self) {
        self.bar.inc(1);
        if !self.shown.load(Ordering::Relaxed) && self.bar.elapsed() >= QUIET_FOR {
            self.shown.store(true, Ordering::Relaxed);
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Take the progress off the screen.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
