//! Remembered addresses: the addresses of the winning line's host name, kept across starts in
//! the state folder, so that a start does not wait for the name server.
//!
//! When a line wins a race ([`crate::net::connect`]), the addresses its name had (the fresh
//! lookup's answer when there was one, else those remembered before; the winning address
//! first) are kept with the time they were seen connecting, and the name's TTL where it is
//! known (the system resolver does not tell it: today it is never known). A later start races
//! a connection to them at once beside a fresh lookup of the name ([`crate::net::race`]): the
//! fresh answer joins the race when it comes, and a remembered address that no longer answers
//! holds the next attempt off for no more than the attempt delay. TLS checks the name as it
//! always does; fixed addresses ([`crate::Options::add_address`]) and IP literals are never
//! remembered (they need no lookup), nor are the addresses of a plain http base URL (nothing
//! would check that a remembered address still serves the name).
//!
//! Addresses seen longer ago than the bound ([`crate::Options::remembered_addresses_max_age`],
//! a day by default; zero turns remembering off) are not used, nor are those seen in the
//! future (a clock moved back). Nothing is kept without a state folder; the file is sealed
//! like every file there ([`crate::state`]), and written without a flush to disk on the path
//! of the connection (it is a help, not a record: after a power cut it may not open, and is
//! then ignored).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::log::{log, LogHook, LogLevel};
use crate::state::Sealed;

/// Default bound on the age of remembered addresses (see
/// [`crate::Options::remembered_addresses_max_age`]): a day.
pub const DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The state file of the remembered addresses.
const FILE: &str = "addresses";
/// The first line of the file's contents.
const FORMAT: &str = "verify addresses v1";
/// Host names kept (a client has one per base URL).
const ENTRIES: usize = 8;
/// Addresses kept for one name.
const ADDRESSES: usize = 16;
/// How far in the future a time seen may be (clocks of one machine that NTP steps) before the
/// entry is taken for a clock moved back and not used.
const FUTURE_SLACK: Duration = Duration::from_secs(60);

/// The addresses of one name, as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// Lowercase host name, no brackets.
    host: String,
    port: u16,
    /// Seconds since the Unix epoch when they were seen (the winning address connected).
    seen: u64,
    /// The name's TTL in seconds, where the resolver told it.
    ttl: Option<u32>,
    /// The winning address first.
    addrs: Vec<SocketAddr>,
}

impl Entry {
    fn line(&self) -> String {
        let addrs: Vec<String> = self.addrs.iter().map(SocketAddr::to_string).collect();
        let ttl = self
            .ttl
            .map_or_else(|| "-".to_owned(), |ttl| ttl.to_string());
        format!(
            "{} {} {} {ttl} {}",
            self.host,
            self.port,
            self.seen,
            addrs.join(",")
        )
    }

    fn parse(line: &str) -> Option<Entry> {
        let mut fields = line.split(' ');
        let host = fields.next().filter(|host| valid_host(host))?.to_owned();
        let port = fields.next()?.parse().ok()?;
        let seen = fields.next()?.parse().ok()?;
        let ttl = match fields.next()? {
            "-" => None,
            ttl => Some(ttl.parse().ok()?),
        };
        let addrs = fields
            .next()?
            .split(',')
            .map(str::parse)
            .collect::<Result<Vec<SocketAddr>, _>>()
            .ok()?;
        if fields.next().is_some() || addrs.is_empty() || addrs.len() > ADDRESSES {
            return None;
        }
        Some(Entry {
            host,
            port,
            seen,
            ttl,
            addrs,
        })
    }
}

/// A host name as the file may hold it: what a URL's host is, no separator of the format.
fn valid_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 253
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// The remembered addresses of a client (see the module).
pub(crate) struct Remembered {
    store: Option<Arc<Sealed>>,
    max_age: Duration,
    entries: Mutex<Vec<Entry>>,
    log: Option<LogHook>,
}

impl std::fmt::Debug for Remembered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remembered")
            .field("max_age", &self.max_age)
            .finish_non_exhaustive()
    }
}

impl Remembered {
    /// The addresses remembered in `store` (none without one, or with a `max_age` of zero).
    pub(crate) fn new(
        store: Option<Arc<Sealed>>,
        max_age: Duration,
        hook: Option<LogHook>,
    ) -> Remembered {
        let store = store.filter(|_| !max_age.is_zero());
        let entries = store
            .as_deref()
            .and_then(|store| store.read(FILE))
            .map(|bytes| {
                let text = String::from_utf8_lossy(&bytes);
                let mut lines = text.lines();
                if lines.next() != Some(FORMAT) {
                    return Vec::new();
                }
                lines.filter_map(Entry::parse).take(ENTRIES).collect()
            })
            .unwrap_or_default();
        Remembered {
            store,
            max_age,
            entries: Mutex::new(entries),
            log: hook,
        }
    }

    fn entries(&self) -> MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `seen` is recent enough to be used at `now` (both in Unix seconds).
    fn usable(&self, seen: u64, now: u64) -> bool {
        match now.checked_sub(seen) {
            Some(age) => Duration::from_secs(age) <= self.max_age,
            None => Duration::from_secs(seen - now) <= FUTURE_SLACK,
        }
    }

    /// The remembered addresses of `host:port` that may be used (the winning one first), or
    /// none.
    pub(crate) fn addresses(&self, host: &str, port: u16) -> Vec<SocketAddr> {
        let now = now_secs();
        let entries = self.entries();
        let Some(entry) = entries
            .iter()
            .find(|entry| entry.port == port && entry.host.eq_ignore_ascii_case(host))
        else {
            return Vec::new();
        };
        if !self.usable(entry.seen, now) {
            log(&self.log, LogLevel::Debug, || {
                format!(
                    "the remembered addresses of {host}:{port} are not used: seen {} s ago, \
                     over the {} s allowed",
                    now.saturating_sub(entry.seen),
                    self.max_age.as_secs()
                )
            });
            return Vec::new();
        }
        log(&self.log, LogLevel::Debug, || {
            format!(
                "{host}:{port}: {} remembered address(es), seen {} s ago",
                entry.addrs.len(),
                now.saturating_sub(entry.seen)
            )
        });
        entry.addrs.clone()
    }

    /// Keeps `winner` and the other addresses of `host:port` (`fresh`, a lookup's answer,
    /// or when there is none, those remembered before), the winner first; written to the
    /// state folder when they changed, or when the time seen there is older than a quarter
    /// of the bound (a start that changes nothing writes nothing).
    pub(crate) fn keep(
        &self,
        host: &str,
        port: u16,
        winner: SocketAddr,
        fresh: Option<Vec<SocketAddr>>,
    ) {
        let Some(store) = &self.store else {
            return;
        };
        if !valid_host(host) {
            return;
        }
        let now = now_secs();
        let text = {
            let mut entries = self.entries();
            let at = entries
                .iter()
                .position(|entry| entry.port == port && entry.host.eq_ignore_ascii_case(host));
            let before = at.map(|at| entries.remove(at));
            let others = fresh
                .or_else(|| before.as_ref().map(|entry| entry.addrs.clone()))
                .unwrap_or_default();
            let mut addrs = vec![winner];
            for addr in others {
                if !addrs.contains(&addr) && addrs.len() < ADDRESSES {
                    addrs.push(addr);
                }
            }
            let entry = Entry {
                host: host.to_ascii_lowercase(),
                port,
                seen: now,
                ttl: None,
                addrs,
            };
            let refresh = (self.max_age / 4).as_secs();
            let unchanged = before.as_ref().is_some_and(|before| {
                before.addrs == entry.addrs
                    && before.ttl == entry.ttl
                    && now >= before.seen
                    && now - before.seen < refresh
            });
            if unchanged {
                if let Some(before) = before {
                    entries.insert(0, before);
                }
                return;
            }
            entries.insert(0, entry);
            entries.truncate(ENTRIES);
            let mut text = String::from(FORMAT);
            for entry in entries.iter() {
                text.push('\n');
                text.push_str(&entry.line());
            }
            text
        };
        if let Err(err) = store.write_unflushed(FILE, text.as_bytes()) {
            log(&self.log, LogLevel::Warn, || {
                format!(
                    "the addresses of {host}:{port} are not remembered: {}",
                    err.message()
                )
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("verify-addresses-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn sealed(folder: &Path) -> Arc<Sealed> {
        Arc::new(
            Sealed::new(folder.to_owned(), "10001", b"APPKEY", b"machine-a", None).expect("sealed"),
        )
    }

    fn addr(text: &str) -> SocketAddr {
        text.parse().expect("address")
    }

    #[test]
    fn addresses_are_kept_sealed_across_starts_the_winner_first() {
        let dir = scratch("kept");
        let first = Remembered::new(
            Some(sealed(&dir)),
            DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE,
            None,
        );
        assert!(first.addresses("licensing.example.test", 443).is_empty());
        let (a, b) = (addr("192.0.2.1:443"), addr("[2001:db8::1]:443"));
        first.keep("Licensing.Example.Test", 443, b, Some(vec![a, b]));
        // Another start reads them: the winner first, the name's case does not matter.
        let second = Remembered::new(
            Some(sealed(&dir)),
            DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE,
            None,
        );
        assert_eq!(second.addresses("licensing.example.test", 443), vec![b, a]);
        assert!(second.addresses("licensing.example.test", 8443).is_empty());
        // Nothing of it in clear.
        let bytes = std::fs::read(sealed(&dir).path(FILE)).expect("the file");
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("licensing") && !text.contains("192.0.2.1"),
            "{text}"
        );
        // A win without a fresh lookup keeps the remembered ones, the new winner first.
        second.keep("licensing.example.test", 443, a, None);
        let third = Remembered::new(
            Some(sealed(&dir)),
            DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE,
            None,
        );
        assert_eq!(third.addresses("licensing.example.test", 443), vec![a, b]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn without_a_state_folder_or_with_no_age_nothing_is_written() {
        let none = Remembered::new(None, DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE, None);
        none.keep("licensing.example.test", 443, addr("192.0.2.1:443"), None);
        assert!(none.addresses("licensing.example.test", 443).is_empty());
        let dir = scratch("off");
        let off = Remembered::new(Some(sealed(&dir)), Duration::ZERO, None);
        off.keep("licensing.example.test", 443, addr("192.0.2.1:443"), None);
        assert!(!dir.exists(), "nothing written with remembering off");
        assert!(off.addresses("licensing.example.test", 443).is_empty());
    }

    #[test]
    fn addresses_older_than_the_bound_or_from_the_future_are_not_used() {
        let dir = scratch("age");
        let now = now_secs();
        let store = sealed(&dir);
        let file = |seen: u64| {
            format!("{FORMAT}\nold.example.test 443 {seen} - 192.0.2.1:443,192.0.2.2:443")
        };
        let hour = 3600;
        for (seen, used) in [
            (now - 2 * hour, true),
            (now - 23 * hour, true),
            (now - 25 * hour, false),
            (now + 30, true),
            (now + 2 * hour, false),
        ] {
            store.write(FILE, file(seen).as_bytes()).expect("write");
            let remembered = Remembered::new(
                Some(Arc::clone(&store)),
                DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE,
                None,
            );
            assert_eq!(
                remembered.addresses("old.example.test", 443).len(),
                if used { 2 } else { 0 },
                "seen at {seen}, now {now}"
            );
        }
        // A shorter bound.
        store
            .write(FILE, file(now - 2 * hour).as_bytes())
            .expect("write");
        let short = Remembered::new(Some(store), Duration::from_secs(hour), None);
        assert!(short.addresses("old.example.test", 443).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unchanged_win_writes_nothing_and_damaged_lines_are_skipped() {
        let dir = scratch("quiet");
        let store = sealed(&dir);
        let a = addr("192.0.2.1:443");
        let remembered = Remembered::new(
            Some(Arc::clone(&store)),
            DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE,
            None,
        );
        remembered.keep("one.example.test", 443, a, Some(vec![a]));
        let path = store.path(FILE);
        let written = std::fs::metadata(&path)
            .expect("meta")
            .modified()
            .expect("mtime");
        remembered.keep("one.example.test", 443, a, Some(vec![a]));
        assert_eq!(
            std::fs::metadata(&path)
                .expect("meta")
                .modified()
                .expect("mtime"),
            written,
            "rewritten though nothing changed"
        );
        let text = format!(
            "{FORMAT}\nbad host 443 1 - 192.0.2.1:443\nok.example.test 443 {} 7 \
             192.0.2.9:443\nno.example.test 443 1 - not-an-address",
            now_secs()
        );
        store.write(FILE, text.as_bytes()).expect("write");
        let read = Remembered::new(Some(store), DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE, None);
        assert_eq!(
            read.addresses("ok.example.test", 443),
            vec![addr("192.0.2.9:443")]
        );
        assert_eq!(read.entries().len(), 1);
        assert_eq!(read.entries()[0].ttl, Some(7));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
