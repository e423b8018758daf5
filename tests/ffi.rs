//! The C ABI called from Rust exactly as a C host calls it: bad input of every kind gives a
//! negative code and a last-error message, never a crash; real calls give replies whose
//! fields are readable without a JSON library.

mod common;

use std::ffi::{c_char, CStr, CString};
use std::ptr;

use common::{Program, APP_KEY};
use verify::ffi::*;

fn last_error() -> (i32, String) {
    let message = unsafe { CStr::from_ptr(verify_last_error_message()) };
    (
        verify_last_error_code(),
        message.to_string_lossy().into_owned(),
    )
}

fn text(ptr: *const c_char) -> Option<String> {
    (!ptr.is_null()).then(|| {
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned()
    })
}

fn new_client(base_url: &str, app_id: &str) -> *mut verify_client {
    let (url, id, key) = (
        CString::new(base_url).unwrap(),
        CString::new(app_id).unwrap(),
        CString::new(APP_KEY).unwrap(),
    );
    let mut client = ptr::null_mut();
    assert_eq!(
        verify_client_new(url.as_ptr(), id.as_ptr(), key.as_ptr(), &mut client),
        VERIFY_OK
    );
    assert!(!client.is_null());
    client
}

type Args<'a> = &'a [*const c_char];
type CallFn = fn(*mut verify_client, Args<'_>, *mut *mut verify_reply) -> i32;

/// Every call that takes string arguments: name, which arguments are required, the call.
fn calls() -> Vec<(&'static str, Vec<bool>, CallFn)> {
    vec![
        ("single_login", vec![true, true, false], |c, a, o| {
            verify_single_login(c, a[0], a[1], a[2], o)
        }),
        ("user_login", vec![true, true, false, false], |c, a, o| {
            verify_user_login(c, a[0], a[1], a[2], a[3], o)
        }),
        (
            "user_register",
            vec![true, true, false, false, false],
            |c, a, o| verify_user_register(c, a[0], a[1], a[2], a[3], a[4], o),
        ),
        ("update_password", vec![true, true, true], |c, a, o| {
            verify_update_password(c, a[0], a[1], a[2], o)
        }),
        ("change_bind", vec![true, true, true], |c, a, o| {
            verify_change_bind(c, a[0], a[1], a[2], o)
        }),
        ("heartbeat", vec![true, false], |c, a, o| {
            verify_heartbeat(c, a[0], VERIFY_SESSION_CARD, a[1], o)
        }),
        ("user_recharge", vec![true, true], |c, a, o| {
            verify_user_recharge(c, a[0], a[1], o)
        }),
        ("get_latest_version", vec![false], |c, a, o| {
            verify_get_latest_version(c, a[0], o)
        }),
        ("get_bulletin", vec![], |c, _, o| verify_get_bulletin(c, o)),
        ("get_variable", vec![false], |c, a, o| {
            verify_get_variable(c, a[0], o)
        }),
        ("get_user_info", vec![true, true], |c, a, o| {
            verify_get_user_info(c, a[0], a[1], o)
        }),
        ("get_card_info", vec![true], |c, a, o| {
            verify_get_card_info(c, a[0], o)
        }),
        ("social_login_start", vec![false], |c, a, o| {
            verify_social_login_start(c, a[0], o)
        }),
        ("social_login_poll", vec![true, false], |c, a, o| {
            verify_social_login_poll(c, a[0], a[1], o)
        }),
        (
            "social_register_start",
            vec![true, false, false],
            |c, a, o| verify_social_register_start(c, a[0], a[1], a[2], o),
        ),
        ("call", vec![true], |c, a, o| {
            verify_call(c, a[0], ptr::null(), ptr::null(), 0, o)
        }),
        ("init", vec![], |c, _, o| verify_init(c, o)),
    ]
}

/// Calls with `bad` in position `at` (all others valid) and checks the refusal.
fn refused(
    name: &str,
    call: CallFn,
    client: *mut verify_client,
    arity: usize,
    at: usize,
    bad: *const c_char,
    expected: i32,
) {
    let valid = CString::new("valid").unwrap();
    let mut args = vec![valid.as_ptr(); arity];
    args[at] = bad;
    let mut out: *mut verify_reply = 8 as *mut verify_reply; // garbage the call must clear
    let code = call(client, &args, &mut out);
    assert_eq!(code, expected, "{name} argument {at}");
    assert!(
        out.is_null(),
        "{name}: *out is NULL when nothing was answered"
    );
    let (last, message) = last_error();
    assert_eq!(last, expected, "{name} last error code");
    assert!(!message.is_empty(), "{name} last error message");
}

#[test]
fn bad_arguments_give_negative_codes_never_a_crash() {
    // Nothing here reaches the network: every argument is checked before sending.
    let client = new_client("http://127.0.0.1:9", "app");
    let invalid_utf8 = c"\xff\xfe".as_ptr();
    let empty = c"".as_ptr();
    let huge = CString::new("x".repeat(1 << 20)).unwrap();
    for (name, required, call) in calls() {
        let arity = required.len();
        for (at, is_required) in required.iter().enumerate() {
            refused(
                name,
                call,
                client,
                arity,
                at,
                invalid_utf8,
                VERIFY_ERR_INVALID_UTF8,
            );
            refused(
                name,
                call,
                client,
                arity,
                at,
                huge.as_ptr(),
                VERIFY_ERR_INVALID_ARGUMENT,
            );
            if *is_required {
                refused(
                    name,
                    call,
                    client,
                    arity,
                    at,
                    ptr::null(),
                    VERIFY_ERR_INVALID_ARGUMENT,
                );
                refused(
                    name,
                    call,
                    client,
                    arity,
                    at,
                    empty,
                    VERIFY_ERR_INVALID_ARGUMENT,
                );
            }
        }
        let valid = CString::new("valid").unwrap();
        let args = vec![valid.as_ptr(); arity];
        let mut out = ptr::null_mut();
        assert_eq!(
            call(ptr::null_mut(), &args, &mut out),
            VERIFY_ERR_INVALID_ARGUMENT,
            "{name} NULL client"
        );
        assert!(out.is_null());
        assert_eq!(
            call(client, &args, ptr::null_mut()),
            VERIFY_ERR_INVALID_ARGUMENT,
            "{name} NULL out"
        );
    }
    verify_client_free(client);
}

#[test]
fn bad_client_construction_and_options() {
    let ok = c"http://127.0.0.1:9".as_ptr();
    let mut out = ptr::null_mut();
    for (url, id, key) in [
        (ptr::null(), c"a".as_ptr(), c"k".as_ptr()),
        (ok, ptr::null(), c"k".as_ptr()),
        (ok, c"a".as_ptr(), ptr::null()),
        (c"ftp://x".as_ptr(), c"a".as_ptr(), c"k".as_ptr()),
        (ok, c"".as_ptr(), c"k".as_ptr()),
    ] {
        assert_eq!(
            verify_client_new(url, id, key, &mut out),
            VERIFY_ERR_INVALID_ARGUMENT
        );
        assert!(out.is_null());
        assert!(!last_error().1.is_empty());
    }
    let bad_utf8 = c"http://\xff".as_ptr();
    assert_eq!(
        verify_client_new(bad_utf8, c"a".as_ptr(), c"k".as_ptr(), &mut out),
        VERIFY_ERR_INVALID_UTF8
    );
    assert_eq!(
        verify_client_new(ok, c"a".as_ptr(), c"k".as_ptr(), ptr::null_mut()),
        VERIFY_ERR_INVALID_ARGUMENT
    );

    let client = new_client("http://127.0.0.1:9", "app");
    assert_eq!(
        verify_client_set_timeouts(client, 0, 1000),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_client_set_timeouts(client, 1000, 0),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_client_set_timeouts(ptr::null_mut(), 1, 1),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(verify_client_set_timeouts(client, 500, u32::MAX), VERIFY_OK);
    let token = c"t".as_ptr();
    let mut reply = ptr::null_mut();
    assert_eq!(
        verify_heartbeat(client, token, 0, ptr::null(), &mut reply),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_heartbeat(client, token, 3, ptr::null(), &mut reply),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert!(last_error().1.contains("VERIFY_SESSION_CARD"));

    let key = c"k".as_ptr();
    let keys = [key, ptr::null()];
    let values = [c"v".as_ptr(), c"v".as_ptr()];
    let action = c"GetVariable".as_ptr();
    assert_eq!(
        verify_call(client, action, ptr::null(), values.as_ptr(), 1, &mut reply),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_call(client, action, keys.as_ptr(), ptr::null(), 1, &mut reply),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_call(
            client,
            action,
            keys.as_ptr(),
            values.as_ptr(),
            2,
            &mut reply
        ),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_call(
            client,
            action,
            keys.as_ptr(),
            values.as_ptr(),
            100_000,
            &mut reply
        ),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    let action_key = [c"action".as_ptr()];
    assert_eq!(
        verify_call(
            client,
            action,
            action_key.as_ptr(),
            values.as_ptr(),
            1,
            &mut reply
        ),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert!(reply.is_null());

    verify_client_free(client);
    verify_client_free(ptr::null_mut());
    verify_reply_free(ptr::null_mut());
}

#[test]
fn reply_accessors_on_a_real_reply() {
    let program = Program::fresh();
    let card = program.count_card("FFIC-OUNT-0000-0001", 3);
    let client = new_client(&program.sandbox.base_url(), &program.app_id);
    let (card_c, mac) = (CString::new(card).unwrap(), c"FFI-MACHINE".as_ptr());
    let mut reply = ptr::null_mut();
    assert_eq!(
        verify_single_login(client, card_c.as_ptr(), mac, ptr::null(), &mut reply),
        VERIFY_OK
    );
    assert!(!reply.is_null());
    assert_eq!(verify_reply_code(reply), VERIFY_OK);
    assert!(text(verify_reply_message(reply)).is_some());
    let token = text(verify_reply_str(reply, c"token".as_ptr())).expect("token");
    assert_eq!(token.len(), 40);
    assert_eq!(verify_reply_int(reply, c"remaining".as_ptr(), -1), 2);
    assert_eq!(verify_reply_int(reply, c"total".as_ptr(), -1), 3);
    assert_eq!(verify_reply_bool(reply, c"is_times".as_ptr(), -1), 1);
    assert_eq!(
        text(verify_reply_str(reply, c"is_times".as_ptr())).as_deref(),
        Some("true")
    );
    let json = text(verify_reply_json(reply)).expect("json");
    assert!(json.contains("\"code\":200"), "{json}");
    // The same borrowed string is handed out again, valid until the reply is freed.
    assert_eq!(
        verify_reply_str(reply, c"token".as_ptr()),
        verify_reply_str(reply, c"token".as_ptr())
    );

    // Unknown field names, wrong types, NULLs.
    assert!(verify_reply_str(reply, c"no_such_field".as_ptr()).is_null());
    assert_eq!(last_error().0, VERIFY_ERR_NO_SUCH_FIELD);
    assert!(last_error().1.contains("no_such_field"));
    assert_eq!(verify_reply_int(reply, c"token".as_ptr(), 77), 77);
    assert_eq!(last_error().0, VERIFY_ERR_NO_SUCH_FIELD);
    assert_eq!(verify_reply_bool(reply, c"nope".as_ptr(), 5), 5);
    assert!(verify_reply_str(reply, ptr::null()).is_null());
    assert_eq!(last_error().0, VERIFY_ERR_INVALID_ARGUMENT);
    assert!(verify_reply_str(reply, c"\xff".as_ptr()).is_null());
    assert_eq!(last_error().0, VERIFY_ERR_INVALID_UTF8);
    assert_eq!(verify_reply_int(reply, ptr::null(), 9), 9);
    assert_eq!(verify_reply_code(ptr::null()), VERIFY_ERR_INVALID_ARGUMENT);
    assert!(verify_reply_message(ptr::null()).is_null());
    assert!(verify_reply_json(ptr::null()).is_null());
    assert!(verify_reply_str(ptr::null(), c"token".as_ptr()).is_null());
    assert_eq!(verify_reply_int(ptr::null(), c"total".as_ptr(), -3), -3);
    assert_eq!(verify_reply_bool(ptr::null(), c"is_times".as_ptr(), -3), -3);
    verify_reply_free(reply);

    // A refusal still gives a reply, with the remark readable.
    program
        .sandbox
        .update_device(
            &program.app_id,
            "FFI-MACHINE",
            "disable",
            Some("设备已禁用"),
        )
        .expect("disable device");
    let mut refusal = ptr::null_mut();
    assert_eq!(
        verify_single_login(client, card_c.as_ptr(), mac, ptr::null(), &mut refusal),
        VERIFY_DISABLED
    );
    assert!(!refusal.is_null());
    assert_eq!(verify_reply_code(refusal), VERIFY_DISABLED);
    assert_eq!(
        text(verify_reply_str(refusal, c"remark".as_ptr())).as_deref(),
        Some("设备已禁用")
    );
    let (code, message) = last_error();
    assert_eq!(code, VERIFY_DISABLED);
    assert!(message.contains("设备已禁用"), "{message}");
    verify_reply_free(refusal);
    verify_client_free(client);
}

#[test]
fn generic_call_and_pending_social_poll() {
    let program = Program::fresh();
    let client = new_client(&program.sandbox.base_url(), &program.app_id);
    let keys = [c"Name".as_ptr()];
    let values = [c"limit".as_ptr()];
    let mut reply = ptr::null_mut();
    assert_eq!(
        verify_call(
            client,
            c"GetVariable".as_ptr(),
            keys.as_ptr(),
            values.as_ptr(),
            1,
            &mut reply
        ),
        VERIFY_OK
    );
    assert_eq!(
        text(verify_reply_str(reply, c"value".as_ptr())).as_deref(),
        Some("5")
    );
    verify_reply_free(reply);

    assert_eq!(
        verify_get_variable(client, ptr::null(), &mut reply),
        VERIFY_OK
    );
    assert_eq!(
        text(verify_reply_str(reply, c"variables.limit".as_ptr())).as_deref(),
        Some("5")
    );
    verify_reply_free(reply);

    assert_eq!(
        verify_social_login_start(client, ptr::null(), &mut reply),
        VERIFY_OK
    );
    let state =
        CString::new(text(verify_reply_str(reply, c"state".as_ptr())).expect("state")).unwrap();
    verify_reply_free(reply);
    assert_eq!(
        verify_social_login_poll(client, state.as_ptr(), ptr::null(), &mut reply),
        VERIFY_PENDING
    );
    assert_eq!(verify_reply_code(reply), VERIFY_PENDING);
    verify_reply_free(reply);
    verify_client_free(client);
}

#[test]
fn unreachable_server_gives_a_local_code_and_no_reply() {
    let sandbox =
        verify_sandbox::Sandbox::start(verify_sandbox::Config::default()).expect("sandbox");
    let url = sandbox.base_url();
    sandbox.stop();
    let client = new_client(&url, "app");
    let mut reply = ptr::null_mut();
    assert_eq!(verify_get_bulletin(client, &mut reply), VERIFY_ERR_NETWORK);
    assert!(reply.is_null());
    verify_client_free(client);
}

#[test]
fn descriptions_and_versions() {
    for code in [
        200,
        201,
        1001,
        1003,
        1004,
        1005,
        1006,
        1007,
        1010,
        1011,
        1012,
        1013,
        1014,
        1015,
        1016,
        1017,
        1019,
        1020,
        1021,
        1022,
        1023,
        1024,
        -1,
        -2,
        -3,
        -4,
        -5,
        -6,
        -7,
        -8,
        -9,
        0,
        42,
        i32::MIN,
        i32::MAX,
    ] {
        let described = text(verify_code_describe(code)).expect("never NULL");
        assert!(!described.is_empty());
    }
    assert_eq!(text(verify_version()).as_deref(), Some(verify::VERSION));
    assert_eq!(verify_abi_version(), VERIFY_ABI_VERSION);
}

#[test]
fn the_init_reply_never_shows_the_session_secret() {
    let program = Program::fresh();
    let client = new_client(&program.sandbox.base_url(), &program.app_id);
    let mut reply = ptr::null_mut();
    assert_eq!(verify_init(client, &mut reply), VERIFY_OK);
    assert_eq!(verify_reply_has(reply, c"api_password".as_ptr()), 0);
    assert!(verify_reply_str(reply, c"api_password".as_ptr()).is_null());
    let json = text(verify_reply_json(reply)).expect("json");
    assert!(!json.contains("api_password"), "{json}");
    verify_reply_free(reply);
    // The secret was kept by the client all the same: actions work.
    assert_eq!(verify_get_bulletin(client, &mut reply), VERIFY_OK);
    verify_reply_free(reply);
    verify_client_free(client);
}

#[test]
fn probing_an_optional_field_keeps_the_last_error() {
    let program = Program::fresh();
    let client = new_client(&program.sandbox.base_url(), &program.app_id);
    let mut reply = ptr::null_mut();
    assert_eq!(
        verify_get_card_info(client, c"NONE-XIST-0000-0000".as_ptr(), &mut reply),
        VERIFY_CARD_INVALID
    );
    let before = last_error();
    assert_eq!(before.0, VERIFY_CARD_INVALID);
    assert_eq!(verify_reply_has(reply, c"remark".as_ptr()), 0);
    assert_eq!(
        last_error(),
        before,
        "verify_reply_has leaves the last error alone"
    );
    verify_reply_free(reply);

    assert_eq!(verify_get_bulletin(client, &mut reply), VERIFY_OK);
    assert_eq!(verify_reply_has(reply, c"bulletin".as_ptr()), 1);
    assert_eq!(
        verify_reply_has(reply, ptr::null()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_reply_has(ptr::null(), c"bulletin".as_ptr()),
        VERIFY_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        verify_reply_has(reply, c"\xff".as_ptr()),
        VERIFY_ERR_INVALID_UTF8
    );
    verify_reply_free(reply);
    verify_client_free(client);
}
