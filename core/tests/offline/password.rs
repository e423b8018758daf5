//! The account's password is checked offline against the store's slow salted hash.

use super::*;

/// The password is checked offline: the store keeps a slow salted hash of the account's
/// password (never the password); a wrong password offline gets its own code, after a slow
/// check (20 ms at least); a password changed online (UpdatePwd) is the one checked from
/// then on; a wrong password online (1003) clears the account's verdict.
#[test]
pub(crate) fn the_password_is_checked_offline() {
    let mut lab = Lab::new();
    lab.account("wanda");
    lab.client()
        .user_login("wanda", "pw", Some("M"))
        .expect("online login");
    for entry in std::fs::read_dir(&lab.folder).expect("the folder") {
        let bytes = std::fs::read(entry.expect("entry").path()).expect("read");
        assert!(!bytes.windows(2).any(|w| w == b"pw"));
    }
    lab.sandbox.pause();
    for wrong in ["p", "PW", "pw ", "anything"] {
        let started = Instant::now();
        let err = lab
            .client()
            .user_login("wanda", wrong, Some("M"))
            .expect_err("a wrong password offline");
        let took = started.elapsed();
        assert_eq!(err.kind(), ErrorKind::OfflinePassword, "{wrong:?}: {err}");
        assert_eq!(err.code(), codes::ERR_OFFLINE_PASSWORD);
        assert!(err.message().contains("password"), "{err}");
        assert!(took >= Duration::from_millis(20), "a guess took {took:?}");
    }
    let offline = lab
        .client()
        .user_login("wanda", "pw", Some("M"))
        .expect("the right password");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    lab.sandbox.resume().expect("resume");

    // The password changed online: the new one opens, the old one does not.
    lab.client()
        .update_password("wanda", "pw", "pw2")
        .expect("password changed");
    lab.sandbox.pause();
    let err = lab
        .client()
        .user_login("wanda", "pw", Some("M"))
        .expect_err("the old password");
    assert_eq!(err.kind(), ErrorKind::OfflinePassword, "{err}");
    let offline = lab
        .client()
        .user_login("wanda", "pw2", Some("M"))
        .expect("the new password");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    lab.sandbox.resume().expect("resume");

    // A wrong password online: the account's verdict is cleared.
    let err = lab
        .client()
        .user_login("wanda", "guess", Some("M"))
        .expect_err("1003");
    assert_eq!(err.code(), codes::WRONG_PASSWORD);
    lab.sandbox.pause();
    let err = lab
        .client()
        .user_login("wanda", "pw2", Some("M"))
        .expect_err("cleared");
    assert_eq!(err.kind(), ErrorKind::Network, "{err}");
}
