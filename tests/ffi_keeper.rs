//! The keeper, the social wait and the machine code through the C ABI, as a C host calls
//! them: a C callback with user_data, the polled status, prompt frees, bad arguments.

mod common;

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{eventually, unique, Program, APP_KEY};
use verify::ffi::*;
use verify_sandbox::{Fault, FaultKind};

const PATIENCE: Duration = Duration::from_secs(20);

fn text(ptr: *const c_char) -> Option<String> {
    (!ptr.is_null()).then(|| {
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned()
    })
}

fn new_client(program: &Program<'_>) -> *mut verify_client {
    let url = CString::new(program.sandbox.base_url()).unwrap();
    let id = CString::new(program.app_id.clone()).unwrap();
    let key = CString::new(APP_KEY).unwrap();
    let mut client = ptr::null_mut();
    assert_eq!(
        verify_client_new(url.as_ptr(), id.as_ptr(), key.as_ptr(), &mut client),
        VERIFY_OK
    );
    client
}

/// Logs an account in through the C ABI; returns its token.
fn login(program: &Program<'_>, client: *mut verify_client) -> (String, CString) {
    let user = unique("ffik");
    program.account(&user, "pw");
    let user_c = CString::new(user.clone()).unwrap();
    let mut reply = ptr::null_mut();
    assert_eq!(
        verify_user_login(
            client,
            user_c.as_ptr(),
            c"pw".as_ptr(),
            ptr::null(),
            ptr::null(),
            &mut reply
        ),
        VERIFY_OK
    );
    let token =
        CString::new(text(verify_reply_str(reply, c"token".as_ptr())).expect("token")).unwrap();
    verify_reply_free(reply);
    (user, token)
}

/// What the C callback records: (kind, code, text or remark).
type Seen = Mutex<Vec<(i32, i32, Option<String>)>>;

unsafe extern "C" fn record(user_data: *mut c_void, event: *const verify_event) {
    let seen = unsafe { &*(user_data as *const Seen) };
    let event = unsafe { &*event };
    let detail = text(event.text).or_else(|| text(event.remark));
    assert!(!event.message.is_null(), "message is never NULL");
    seen.lock().unwrap().push((event.kind, event.code, detail));
}

fn kinds(seen: &Seen, kind: i32) -> Vec<(i32, i32, Option<String>)> {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|e| e.0 == kind)
        .cloned()
        .collect()
}

#[test]
fn keeper_events_reach_a_c_callback() {
    let program = Program::fresh();
    let client = new_client(&program);
    let (user, token) = login(&program, client);
    let seen: Box<Seen> = Box::default();
    let mut keeper = ptr::null_mut();
    let user_data = &*seen as *const Seen as *mut c_void;
    assert_eq!(
        verify_keeper_start(
            client,
            token.as_ptr(),
            VERIFY_SESSION_USER,
            ptr::null(),
            1000,
            0,
            Some(record),
            user_data,
            &mut keeper
        ),
        VERIFY_OK
    );
    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "公告")
        .expect("message");
    assert!(eventually(PATIENCE, || !kinds(&seen, VERIFY_EVENT_MESSAGE).is_empty()));
    assert_eq!(
        kinds(&seen, VERIFY_EVENT_MESSAGE),
        [(VERIFY_EVENT_MESSAGE, 200, Some("公告".to_owned()))]
    );
    assert_eq!(verify_keeper_state(keeper), VERIFY_KEEPER_ALIVE);

    program
        .sandbox
        .update_account(&program.app_id, &user, "ban", Some("封禁"))
        .expect("ban");
    assert!(eventually(PATIENCE, || !kinds(&seen, VERIFY_EVENT_ENDED).is_empty()));
    assert_eq!(
        kinds(&seen, VERIFY_EVENT_ENDED),
        [(VERIFY_EVENT_ENDED, 1006, Some("封禁".to_owned()))]
    );
    assert_eq!(verify_keeper_state(keeper), VERIFY_KEEPER_ENDED);
    verify_keeper_free(keeper);
    verify_client_free(client);
}

#[test]
fn the_polled_status_reads_like_a_reply() {
    let program = Program::fresh();
    let client = new_client(&program);
    let (user, token) = login(&program, client);
    let mut keeper = ptr::null_mut();
    assert_eq!(
        verify_keeper_start(
            client,
            token.as_ptr(),
            VERIFY_SESSION_USER,
            c"10.1.2.3".as_ptr(),
            1000,
            60_000,
            None,
            ptr::null_mut(),
            &mut keeper
        ),
        VERIFY_OK
    );
    let mut status = ptr::null_mut();
    assert_eq!(verify_keeper_status(keeper, &mut status), VERIFY_OK);
    assert_eq!(
        text(verify_reply_str(status, c"state".as_ptr())).as_deref(),
        Some("alive")
    );
    assert_eq!(verify_reply_int(status, c"last_code".as_ptr(), -1), 0);
    assert_eq!(verify_reply_int(status, c"last_success".as_ptr(), -1), 0);
    verify_reply_free(status);

    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "poll me")
        .expect("message");
    let mut messages = Vec::new();
    assert!(eventually(PATIENCE, || {
        let mut status = ptr::null_mut();
        assert_eq!(verify_keeper_status(keeper, &mut status), VERIFY_OK);
        for index in 0..verify_reply_int(status, c"message_count".as_ptr(), 0) {
            let path = CString::new(format!("messages.{index}")).unwrap();
            messages.push(text(verify_reply_str(status, path.as_ptr())).expect("message text"));
        }
        verify_reply_free(status);
        !messages.is_empty()
    }));
    assert_eq!(messages, ["poll me"]);
    let mut status = ptr::null_mut();
    assert_eq!(verify_keeper_status(keeper, &mut status), VERIFY_OK);
    assert_eq!(verify_reply_int(status, c"last_code".as_ptr(), -1), 200);
    assert!(verify_reply_int(status, c"last_success".as_ptr(), 0) > 1_700_000_000);
    assert!(text(verify_reply_str(status, c"expire_at".as_ptr())).is_some());
    assert_eq!(
        verify_reply_int(status, c"message_count".as_ptr(), -1),
        0,
        "each message once"
    );
    verify_reply_free(status);
    verify_keeper_free(keeper);
    verify_client_free(client);
}

#[test]
fn freeing_the_client_stops_its_keeper_mid_request_within_100_ms() {
    let program = Program::fresh();
    let client = new_client(&program);
    let (_, token) = login(&program, client);
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some("UserHeartbeat".into()),
        count: None,
        delay_ms: 10_000,
    });
    let mut keeper = ptr::null_mut();
    assert_eq!(
        verify_keeper_start(
            client,
            token.as_ptr(),
            VERIFY_SESSION_USER,
            ptr::null(),
            1000,
            0,
            None,
            ptr::null_mut(),
            &mut keeper
        ),
        VERIFY_OK
    );
    assert!(eventually(PATIENCE, || program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .any(|e| e.action.as_deref() == Some("UserHeartbeat"))));
    let started = Instant::now();
    verify_client_free(client);
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "{:?}",
        started.elapsed()
    );
    // The keeper handle stays valid after its client is gone, and reports the end.
    assert_eq!(verify_keeper_state(keeper), VERIFY_KEEPER_ENDED);
    assert_eq!(verify_keeper_stop(keeper), VERIFY_OK);
    verify_keeper_free(keeper);
}

#[test]
fn social_wait_through_the_c_abi_is_cancellable() {
    let program = Program::fresh();
    let client = new_client(&program);
    let mut reply = ptr::null_mut();
    assert_eq!(
        verify_social_login_start(client, ptr::null(), &mut reply),
        VERIFY_OK
    );
    let state =
        CString::new(text(verify_reply_str(reply, c"state".as_ptr())).expect("state")).unwrap();
    verify_reply_free(reply);
    let mut cancel = ptr::null_mut();
    assert_eq!(verify_cancel_new(&mut cancel), VERIFY_OK);
    struct Shared(*mut verify_cancel);
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}
    let shared = Shared(cancel);
    std::thread::scope(|scope| {
        let canceller = scope.spawn(|| {
            let shared = &shared;
            assert!(eventually(PATIENCE, || program
                .sandbox
                .request_log(Some(&program.app_id))
                .iter()
                .any(|e| e.code == 201)));
            let at = Instant::now();
            assert_eq!(verify_cancel_cancel(shared.0), VERIFY_OK);
            at
        });
        let mut out = ptr::null_mut();
        let code = verify_social_login_wait(
            client,
            state.as_ptr(),
            ptr::null(),
            60_000,
            60_000,
            shared.0,
            &mut out,
        );
        let returned = Instant::now();
        assert_eq!(code, VERIFY_ERR_CANCELLED);
        assert!(out.is_null());
        assert!(returned - canceller.join().unwrap() < Duration::from_millis(100));
    });
    verify_cancel_free(cancel);

    // Completed by the back office while the wait runs.
    let user = unique("ffisw");
    let user_c = CString::new(user.clone()).unwrap();
    assert_eq!(
        verify_social_register_start(
            client,
            user_c.as_ptr(),
            ptr::null(),
            ptr::null(),
            &mut reply
        ),
        VERIFY_OK
    );
    let url = text(verify_reply_str(reply, c"url".as_ptr())).expect("url");
    verify_reply_free(reply);
    let reg_state = url
        .split("state=")
        .nth(1)
        .expect("state in the URL")
        .to_owned();
    program
        .sandbox
        .authorize_social(&reg_state, "openid-ffi", "C")
        .expect("registered");
    assert_eq!(
        verify_social_login_start(client, ptr::null(), &mut reply),
        VERIFY_OK
    );
    let state = text(verify_reply_str(reply, c"state".as_ptr())).expect("state");
    verify_reply_free(reply);
    let state_c = CString::new(state.clone()).unwrap();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            assert!(eventually(PATIENCE, || program
                .sandbox
                .request_log(Some(&program.app_id))
                .iter()
                .filter(|e| e.code == 201)
                .count()
                >= 2));
            program
                .sandbox
                .authorize_social(&state, "openid-ffi", "C")
                .expect("authorize");
        });
        let mut out = ptr::null_mut();
        assert_eq!(
            verify_social_login_wait(
                client,
                state_c.as_ptr(),
                ptr::null(),
                50,
                20_000,
                ptr::null(),
                &mut out
            ),
            VERIFY_OK
        );
        assert_eq!(
            text(verify_reply_str(out, c"username".as_ptr())).as_deref(),
            Some(user.as_str())
        );
        verify_reply_free(out);
    });
    verify_client_free(client);
}

#[test]
fn machine_code_through_the_c_abi() {
    let mut buffer = [0 as c_char; 33];
    assert_eq!(
        verify_machine_code(c"app-1".as_ptr(), buffer.as_mut_ptr(), buffer.len()),
        VERIFY_OK
    );
    let code = unsafe { CStr::from_ptr(buffer.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(code, verify::machine_code("app-1").unwrap());
    assert_eq!(
        verify_machine_code(c"".as_ptr(), buffer.as_mut_ptr(), buffer.len()),
        VERIFY_OK
    );
    let mut short = [0 as c_char; 32];
    assert_eq!(
        verify_machine_code(c"x".as_ptr(), short.as_mut_ptr(), short.len()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_machine_code(ptr::null(), buffer.as_mut_ptr(), buffer.len()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_machine_code(c"x".as_ptr(), ptr::null_mut(), 33),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_machine_code(c"\xff".as_ptr(), buffer.as_mut_ptr(), buffer.len()),
        VERIFY_ERR_INVALID_UTF8
    );
}

#[test]
fn keeper_and_cancel_bad_arguments() {
    let program = Program::fresh();
    let client = new_client(&program);
    let mut keeper = 1 as *mut verify_keeper;
    let token = c"t".as_ptr();
    let start = |client, token, kind, interval, out| {
        verify_keeper_start(
            client,
            token,
            kind,
            ptr::null(),
            interval,
            0,
            None,
            ptr::null_mut(),
            out,
        )
    };
    assert_eq!(
        start(
            ptr::null_mut(),
            token,
            VERIFY_SESSION_CARD,
            1000,
            &mut keeper
        ),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert!(keeper.is_null());
    assert_eq!(
        start(client, ptr::null(), VERIFY_SESSION_CARD, 1000, &mut keeper),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        start(client, c"".as_ptr(), VERIFY_SESSION_CARD, 1000, &mut keeper),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        start(client, token, 7, 1000, &mut keeper),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        start(client, token, VERIFY_SESSION_CARD, 999, &mut keeper),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        start(client, token, VERIFY_SESSION_CARD, 1000, ptr::null_mut()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        start(
            client,
            c"\xff".as_ptr(),
            VERIFY_SESSION_CARD,
            1000,
            &mut keeper
        ),
        VERIFY_ERR_INVALID_UTF8
    );
    assert_eq!(
        verify_keeper_state(ptr::null()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_keeper_stop(ptr::null_mut()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    let mut status = ptr::null_mut();
    assert_eq!(
        verify_keeper_status(ptr::null(), &mut status),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    verify_keeper_free(ptr::null_mut());
    assert_eq!(
        verify_cancel_new(ptr::null_mut()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_cancel_cancel(ptr::null_mut()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    verify_cancel_free(ptr::null_mut());
    let mut out = ptr::null_mut();
    assert_eq!(
        verify_social_login_wait(
            client,
            ptr::null(),
            ptr::null(),
            10,
            10,
            ptr::null(),
            &mut out
        ),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_social_login_wait(
            client,
            c"s".as_ptr(),
            ptr::null(),
            0,
            10,
            ptr::null(),
            &mut out
        ),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    verify_client_free(client);
}
