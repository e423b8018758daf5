//! A keeper's events, recorded for the tests that watch them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use verify_core::{Event, EventKind, KeeperOptions};

/// The events a keeper reported, in order.
pub type Events = Arc<Mutex<Vec<Event>>>;

/// A keeper callback recording every event, and the record.
pub fn recorder() -> (Events, verify_core::keeper::EventCallback) {
    let events: Events = Arc::default();
    let sink = Arc::clone(&events);
    let callback = Box::new(move |event: &Event| {
        sink.lock().expect("events").push(event.clone());
    });
    (events, callback)
}

/// How many events of `kind` were recorded.
pub fn count(events: &Events, kind: EventKind) -> usize {
    events
        .lock()
        .expect("events")
        .iter()
        .filter(|e| e.kind == kind)
        .count()
}

/// The first event of `kind`, if one was recorded.
pub fn first(events: &Events, kind: EventKind) -> Option<Event> {
    events
        .lock()
        .expect("events")
        .iter()
        .find(|e| e.kind == kind)
        .cloned()
}

/// Keeper options with a heartbeat every second.
pub fn fast() -> KeeperOptions {
    KeeperOptions {
        interval: Duration::from_secs(1),
        ..KeeperOptions::default()
    }
}
