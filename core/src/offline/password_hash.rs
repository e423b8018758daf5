//! The slow salted hash of an account's password that the offline store keeps, so that an
//! offline login checks the password without the store holding it: PBKDF2-HMAC-SHA256
//! (ring), a random salt per hash, and as many rounds as take [`TARGET`] on this machine
//! (measured once per process, never fewer than [`MIN_ROUNDS`]). The rounds are kept with
//! the hash: checking a password offline costs what hashing it online cost.

use std::num::NonZeroU32;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ring::pbkdf2;
use ring::rand::{SecureRandom, SystemRandom};

use crate::error::Error;

/// What one hash should cost on this machine: an online login pays it once, and so does
/// every guess offline.
pub const TARGET: Duration = Duration::from_millis(24);
/// The fewest rounds ever used, however fast the machine looks.
pub const MIN_ROUNDS: u32 = 20_000;
/// The most rounds ever used, however slow the machine looks (a store never asks more).
pub const MAX_ROUNDS: u32 = 20_000_000;
/// Rounds of one calibration sample.
const SAMPLE_ROUNDS: u32 = 1_000;
const SALT_LEN: usize = 16;
const HASH_LEN: usize = 32;

/// A password's hash with its salt and rounds.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PasswordHash {
    pub(crate) salt: Vec<u8>,
    pub(crate) hash: Vec<u8>,
    pub(crate) rounds: u32,
}

impl std::fmt::Debug for PasswordHash {
    /// Neither the salt nor the hash is printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasswordHash")
            .field("rounds", &self.rounds)
            .finish_non_exhaustive()
    }
}

/// The rounds that take about [`TARGET`] here: the fastest of two samples (a sample slowed
/// down by another thread would lower the cost), scaled, within the bounds.
pub(crate) fn rounds() -> u32 {
    static ROUNDS: OnceLock<u32> = OnceLock::new();
    *ROUNDS.get_or_init(|| {
        let sample = |n: u32| {
            let mut out = [0u8; HASH_LEN];
            let started = Instant::now();
            derive(&[0u8; SALT_LEN], b"calibration", n, &mut out);
            started.elapsed()
        };
        let fastest = sample(SAMPLE_ROUNDS).min(sample(SAMPLE_ROUNDS));
        let nanos = fastest.as_nanos().max(1);
        let wanted = TARGET.as_nanos().saturating_mul(u128::from(SAMPLE_ROUNDS)) / nanos;
        u32::try_from(wanted)
            .unwrap_or(MAX_ROUNDS)
            .clamp(MIN_ROUNDS, MAX_ROUNDS)
    })
}

fn derive(salt: &[u8], password: &[u8], rounds: u32, out: &mut [u8]) {
    let rounds = NonZeroU32::new(rounds).unwrap_or(NonZeroU32::MIN);
    pbkdf2::derive(pbkdf2::PBKDF2_HMAC_SHA256, rounds, salt, password, out);
}

impl PasswordHash {
    /// The hash of `password` with a new random salt and this machine's rounds.
    pub(crate) fn new(password: &str) -> Result<PasswordHash, Error> {
        let mut salt = vec![0u8; SALT_LEN];
        SystemRandom::new()
            .fill(&mut salt)
            .map_err(|_| Error::system("no system randomness"))?;
        let rounds = rounds();
        let mut hash = vec![0u8; HASH_LEN];
        derive(&salt, password.as_bytes(), rounds, &mut hash);
        Ok(PasswordHash { salt, hash, rounds })
    }

    /// Whether `password` is the one hashed (in a time that does not depend on where they
    /// differ). Rounds outside the bounds never match.
    pub(crate) fn matches(&self, password: &str) -> bool {
        if !(MIN_ROUNDS..=MAX_ROUNDS).contains(&self.rounds) || self.hash.len() != HASH_LEN {
            return false;
        }
        let rounds = NonZeroU32::new(self.rounds).unwrap_or(NonZeroU32::MIN);
        pbkdf2::verify(
            pbkdf2::PBKDF2_HMAC_SHA256,
            rounds,
            &self.salt,
            password.as_bytes(),
            &self.hash,
        )
        .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_matches_and_nothing_else() {
        let hash = PasswordHash::new("correct horse").expect("hash");
        assert!(hash.matches("correct horse"));
        assert!(!hash.matches("correct hors"));
        assert!(!hash.matches(""));
        let again = PasswordHash::new("correct horse").expect("hash");
        assert_ne!(hash.salt, again.salt, "a new salt each time");
        assert_ne!(hash.hash, again.hash);
        assert!(!format!("{hash:?}").contains(&hex::encode(&hash.hash)));
        let weakened = PasswordHash {
            rounds: 1,
            ..hash.clone()
        };
        assert!(!weakened.matches("correct horse"), "too few rounds");
        assert!((MIN_ROUNDS..=MAX_ROUNDS).contains(&rounds()));
    }
}
