//! The clock: moved back, the grace run out and an expiry passed offline are refused with
//! their codes, and the latest time seen cannot be wound back.

use super::*;

#[test]
pub(crate) fn the_clock_moved_back_the_grace_run_out_and_an_expiry_passed_are_refused() {
    // The server's clock two hours ahead: the local clock is two hours behind the latest
    // server time seen when offline.
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.sandbox.shift_clock(2 * 3600);
    lab.client()
        .single_login(&card, "M", None)
        .expect("online (the clock learned from 1014)");
    lab.sandbox.pause();
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("clock back");
    assert_eq!(err.kind(), ErrorKind::ClockBack, "{err}");
    assert!(err.message().contains("moved back"), "{err}");
    assert!(
        err.message().contains("could not be reached"),
        "the network's reason: {err}"
    );
    let mut tolerant = lab.options();
    tolerant.clock_tolerance = Duration::from_secs(3 * 3600);
    let offline = lab
        .client_with(tolerant)
        .single_login(&card, "M", None)
        .expect("within a tolerance of 3 h");
    assert_eq!(offline.reply().code(), codes::OFFLINE);

    // Confirmed two hours ago (the server's clock behind): a grace of 1 h has run out.
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.sandbox.shift_clock(-2 * 3600);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let mut short = lab.options();
    short.offline_grace = Some(Duration::from_secs(3600));
    let err = lab
        .client_with(short)
        .single_login(&card, "M", None)
        .expect_err("grace over");
    assert_eq!(err.kind(), ErrorKind::GraceOver, "{err}");
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("within 7 days");
    assert!(near(
        offline.reply().offline().expect("offline").confirmed_at,
        SystemTime::now() - Duration::from_secs(2 * 3600),
        Duration::from_secs(120)
    ));

    // A one-day card activated two days ago (by the server's clock): expired offline.
    let mut lab = Lab::new();
    let card = lab.card(1);
    lab.sandbox.shift_clock(-2 * DAY as i64);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("expired");
    assert_eq!(err.kind(), ErrorKind::OfflineExpired, "{err}");
}

/// Time that cannot be wound back: the latest time seen is kept (in the state folder and in
/// a second place outside it), so that a clock set back after the grace ran out, or an older
/// copy of the state folder put back, is refused; a clock set ahead past the grace is the
/// grace over; a warm start writes nothing new.
#[test]
pub(crate) fn time_cannot_be_wound_back() {
    // Confirmed at T (the server's clock two hours behind), grace 1 h: grace over now; the
    // clock set back to T + 30 min is then refused as moved back.
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.sandbox.shift_clock(-2 * 3600);
    let mut hour = lab.options();
    hour.offline_grace = Some(Duration::from_secs(3600));
    lab.client_with(hour.clone())
        .single_login(&card, "M", None)
        .expect("online");
    lab.sandbox.pause();
    let err = lab
        .client_with(hour.clone())
        .single_login(&card, "M", None)
        .expect_err("grace over");
    assert_eq!(err.kind(), ErrorKind::GraceOver, "{err}");
    let mut back = hour.clone();
    back.clock_shift = -90 * 60;
    let err = lab
        .client_with(back)
        .single_login(&card, "M", None)
        .expect_err("the clock set back into the grace");
    assert_eq!(err.kind(), ErrorKind::ClockBack, "{err}");
    assert!(err.message().contains("moved back"), "{err}");
    // A day back, and ahead past the grace.
    let mut day_back = lab.options();
    day_back.clock_shift = -(DAY as i64);
    let err = lab
        .client_with(day_back)
        .single_login(&card, "M", None)
        .expect_err("a day back");
    assert_eq!(err.kind(), ErrorKind::ClockBack, "{err}");
    let mut ahead = lab.options();
    ahead.clock_shift = 8 * DAY as i64;
    let err = lab
        .client_with(ahead)
        .single_login(&card, "M", None)
        .expect_err("ahead past the grace");
    assert_eq!(err.kind(), ErrorKind::GraceOver, "{err}");
    // The clock once ahead by mistake costs offline starts only until the next online one:
    // the server's confirmation sets the mark to its time.
    lab.sandbox.resume().expect("resume");
    lab.sandbox.set_clock_offset(0);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("offline again");
    assert_eq!(offline.reply().code(), codes::OFFLINE);

    // A warm start writes nothing new: the mark moves by a minute or more, or stays.
    let before = (files(&lab.folder), files(&lab.mark_folder));
    assert!(!before.1.is_empty(), "the second place holds the mark");
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("offline again");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    assert!(
        before == (files(&lab.folder), files(&lab.mark_folder)),
        "a warm start wrote"
    );

    // An older copy of the state folder put back (the second place untouched): refused.
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.client().single_login(&card, "M", None).expect("online");
    let older = files(&lab.folder);
    let older_mark = files(&lab.mark_folder);
    lab.sandbox.shift_clock(DAY as i64);
    lab.client()
        .single_login(&card, "M", None)
        .expect("online a day later");
    lab.sandbox.pause();
    put_back(&lab.folder, &older);
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("the older copy put back");
    assert_eq!(err.kind(), ErrorKind::ClockBack, "{err}");
    // Older copies of both places put back: the older state answers (the limit SECURITY.md
    // states).
    put_back(&lab.mark_folder, &older_mark);
    put_back(&lab.folder, &older);
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("both places rolled back");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
}
