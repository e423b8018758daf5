//! The request log: one entry per request to a service path (a ring of `log_size`
//! entries), and the inspector's details of the newest of them.

use serde_json::Value;

use super::records::LogEntry;
use super::state::State;
use crate::inspect::{mask_path, Detail, DETAILS_KEPT};

impl State {
    /// The newest `limit` entries (all when `None`) of one program or of all, oldest first.
    pub fn request_log_newest(&self, app_id: Option<&str>, limit: Option<usize>) -> Vec<LogEntry> {
        let mut newest: Vec<LogEntry> = self
            .log
            .iter()
            .rev()
            .filter(|e| app_id.is_none() || e.app_id.as_deref() == app_id)
            .take(limit.unwrap_or(usize::MAX))
            .cloned()
            .collect();
        newest.reverse();
        newest
    }

    /// Every entry of one program or of all, oldest first (masked when recorded).
    pub fn request_log(&self, app_id: Option<&str>) -> Vec<LogEntry> {
        self.request_log_newest(app_id, None)
    }

    /// Appends to the request log (a ring: the oldest entry goes when it is full), with the
    /// inspector's detail when there is one. The ApiPassword of a Handle path is masked.
    pub fn record(
        &mut self,
        conn: u64,
        path: &str,
        app_id: Option<&str>,
        action: Option<&str>,
        code: i64,
        detail: Option<Detail>,
    ) {
        self.requests += 1;
        if self.log_size == 0 {
            return;
        }
        while self.log.len() >= self.log_size {
            self.log.pop_front();
        }
        let seq = self.requests;
        self.log.push_back(LogEntry {
            seq,
            conn,
            path: mask_path(path),
            app_id: app_id.map(str::to_string),
            action: action.map(str::to_string),
            code,
            at: self.now(),
            diagnosis: detail
                .as_ref()
                .and_then(|d| d.diagnoses.first())
                .map(|d| d.title.clone()),
        });
        if let Some(d) = detail {
            while self.details.len() >= DETAILS_KEPT.min(self.log_size) {
                self.details.pop_front();
            }
            self.details.push_back((seq, d));
        }
    }

    /// One log entry with the inspector's detail (`GET /_sandbox/log/{seq}`): `Ok(None)`
    /// when there is no such entry, `Err` when its detail is no longer kept.
    pub fn log_entry(&self, seq: u64) -> Result<Option<Value>, String> {
        let Some(entry) = self.log.iter().find(|e| e.seq == seq) else {
            return Ok(None);
        };
        let found = self
            .details
            .binary_search_by_key(&seq, |(s, _)| *s)
            .ok()
            .and_then(|i| self.details.get(i));
        let Some((_, detail)) = found else {
            return Err(format!(
                "the details of entry {seq} are no longer kept: the newest {} are",
                DETAILS_KEPT.min(self.log_size)
            ));
        };
        let mut v = serde_json::to_value(entry).unwrap_or(Value::Null);
        if let (Value::Object(m), Value::Object(d)) = (&mut v, detail.to_json(&entry.path)) {
            m.extend(d);
        }
        Ok(Some(v))
    }
}
