//! The one place the library's diagnostics reach the terminal: the library
//! sends warnings, notes and the page's access log as `tracing` events and
//! never prints; this subscriber writes each on stderr as the commands
//! write their own (`warning: ...` in `--color`'s colours; an access-log
//! line as it stands).

use std::fmt::Write as _;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::Layer;

/// Install the stderr renderer for the whole process (once; a second call
/// changes nothing).
pub fn install() {
    let subscriber = tracing_subscriber::registry().with(Stderr);
    let _ = tracing::subscriber::set_global_default(subscriber);
}

struct Stderr;

impl<S: Subscriber> Layer<S> for Stderr {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        let text = message.0;
        let meta = event.metadata();
        if meta.target() == glossa::serve::ACCESS_LOG {
            eprintln!("{text}");
            return;
        }
        match *meta.level() {
            Level::ERROR => eprintln!("{}: {text}", super::style::error()),
            Level::WARN => eprintln!("{}: {text}", super::style::warning()),
            Level::INFO => eprintln!("{}: {text}", super::style::note()),
            // Debug and trace events are for a collector, not the terminal.
            _ => {}
        }
    }
}

/// An event's `message` field, then any other fields as ` name=value`.
struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}
