//! The random keys the store issues: session secrets (Init's api_password), login tokens
//! and card keys.

use rand::Rng;

fn random_from(charset: &[u8], len: usize) -> String {
    let mut rng = rand::thread_rng();
    (0..len)
        .map(|_| char::from(charset[rng.gen_range(0..charset.len())]))
        .collect()
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_ALNUM: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

pub fn gen_api_password() -> String {
    random_from(ALNUM, 32)
}

pub fn gen_token() -> String {
    random_from(LOWER_ALNUM, 40)
}

pub fn gen_card_key() -> String {
    (0..4)
        .map(|_| random_from(UPPER_ALNUM, 4))
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_secrets_have_their_shapes() {
        let pw = gen_api_password();
        assert_eq!(pw.len(), 32);
        assert!(pw.chars().all(|c| c.is_ascii_alphanumeric()));
        let t = gen_token();
        assert_eq!(t.len(), 40);
        assert!(t
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
        let k = gen_card_key();
        assert_eq!(k.len(), 19);
        assert_eq!(k.split('-').count(), 4);
    }
}
