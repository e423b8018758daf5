//! The shared part of a running sandbox: the lock over the state, the change signal the
//! console's event streams and the state file writer wait on, and the writer's save loop.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::persist::{Persist, Saved};
use super::state::State;

/// The shared part of a running sandbox.
#[derive(Debug)]
pub struct Shared {
    state: Mutex<State>,
    pub connections: AtomicU64,
    /// Connections open now (http and https).
    pub open: std::sync::atomic::AtomicUsize,
    pub control: bool,
    /// Whether the inspector keeps details (the control API is on and the log keeps
    /// entries).
    pub inspect: bool,
    pub limits: crate::fixtures::Limits,
    pub persist: Option<Persist>,
    /// Bumped at every change: the console's server-sent events wait on it.
    pub events: tokio::sync::watch::Sender<u64>,
    /// Requests to the control API and the console that the door let in.
    pub control_requests: AtomicU64,
    /// Event streams open now.
    pub event_streams: std::sync::atomic::AtomicUsize,
}

impl Shared {
    pub fn with(
        control: bool,
        log_size: usize,
        limits: crate::fixtures::Limits,
        state_file: Option<std::path::PathBuf>,
    ) -> Shared {
        let state = State {
            log_size,
            api_password_cap: limits.api_passwords_per_program,
            ..State::default()
        };
        Shared {
            state: Mutex::new(state),
            connections: AtomicU64::new(0),
            open: std::sync::atomic::AtomicUsize::new(0),
            control,
            inspect: control && log_size > 0,
            limits,
            persist: state_file.map(|path| Persist {
                path,
                dirty: Mutex::new((false, false)),
                wake: Condvar::new(),
            }),
            events: tokio::sync::watch::Sender::new(0),
            control_requests: AtomicU64::new(0),
            event_streams: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Locks the state. Never held across an await.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Numbers a newly accepted connection (1 for the first).
    pub fn accept_connection(&self) -> u64 {
        self.connections.fetch_add(1, Ordering::SeqCst) + 1
    }

    pub fn connections_accepted(&self) -> u64 {
        self.connections.load(Ordering::SeqCst)
    }

    /// The sandbox clock.
    pub fn now(&self) -> i64 {
        self.lock().now()
    }

    /// Something may have changed: the state file writer saves it, and the console's event
    /// streams say so.
    pub fn changed(&self) {
        self.events.send_modify(|v| *v = v.wrapping_add(1));
        if let Some(p) = &self.persist {
            let mut d = p.dirty.lock().unwrap_or_else(|e| e.into_inner());
            d.0 = true;
            p.wake.notify_all();
        }
    }

    /// The state as the state file holds it.
    pub fn snapshot(&self) -> Vec<u8> {
        let saved = self.lock().save();
        serde_json::to_vec_pretty(&saved).unwrap_or_default()
    }

    /// The state file writer's loop: saves when changed (only when the bytes differ) until
    /// `stop_persist`, then saves once more.
    pub fn persist_loop(&self) {
        let Some(p) = &self.persist else { return };
        let mut last: Vec<u8> = std::fs::read(&p.path).unwrap_or_default();
        loop {
            let stop = {
                let mut d = p.dirty.lock().unwrap_or_else(|e| e.into_inner());
                while !d.0 && !d.1 {
                    d = p.wake.wait(d).unwrap_or_else(|e| e.into_inner());
                }
                d.0 = false;
                d.1
            };
            let bytes = self.snapshot();
            if bytes != last {
                match Persist::write_atomically(&p.path, &bytes) {
                    Ok(()) => last = bytes,
                    Err(e) => eprintln!(
                        "verify-sandbox: cannot save the state to {}: {e}",
                        p.path.display()
                    ),
                }
            }
            if stop {
                return;
            }
            // Coalesce bursts (a load test changes the state at every request): at most
            // one save per 20 ms; the stop request is still served by a last save.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Ends `persist_loop` after a last save.
    pub fn stop_persist(&self) {
        if let Some(p) = &self.persist {
            let mut d = p.dirty.lock().unwrap_or_else(|e| e.into_inner());
            d.1 = true;
            p.wake.notify_all();
        }
    }

    /// Loads the state file when it exists. `Ok(true)` when loaded.
    pub fn load_state_file(&self) -> Result<bool, String> {
        let Some(p) = &self.persist else {
            return Ok(false);
        };
        let text = match std::fs::read(&p.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(format!("cannot read {}: {e}", p.path.display())),
        };
        let saved: Saved = serde_json::from_slice(&text)
            .map_err(|e| format!("{}: invalid state file: {e}", p.path.display()))?;
        self.lock().restore(saved)?;
        Ok(true)
    }
}
