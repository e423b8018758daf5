// NativeMethods.cs: the C functions of verify.h (see it for the C contract); the action
// table's functions are declared in Generated/NativeMethods.Actions.g.cs.
//
// Interop rules the binding keeps (see verify.h for the C contract):
// - Every native object is owned by a public SafeHandle subclass (ClientHandle, ReplyHandle,
//   KeeperHandle, KeeperOptionsHandle, KeeperStatusHandle, CancelHandle), freed exactly once
//   by the library's own free function, never while a call that uses it is running. A reply
//   object holds its ReplyHandle, which the garbage collector frees (SafeHandle's critical
//   finalizer) once the reply is unreachable.
// - Every DllImport and the callback delegate use CallingConvention.Winapi: stdcall on 32-bit
//   Windows, the platform's C convention elsewhere, which is the header's VERIFY_CALL.
// - Strings go in as NUL-terminated UTF-8 (UnmanagedType.LPUTF8Str, copied by the library).
// - Strings the library owns come back as IntPtr and are copied out with a UTF-8 decode while
//   their owner is held (DangerousAddRef); never declared as `string` returns (the marshaller
//   would free library memory).
// - Booleans cross the boundary as int32 only; size_t as UIntPtr.
// - The keeper's event reaches managed code as a [StructLayout(Sequential)] struct
//   (NativeEvent). The callback delegate is rooted by a strong GCHandle that KeeperHandle frees
//   only after verify_keeper_free returned (the library joins the keeper's threads there), so
//   the library never calls a collected delegate. It catches every exception: none unwinds
//   into native code.

using System;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>The C functions of verify.h, one to one; every one VERIFY_CALL (Winapi).</summary>
    internal static partial class NativeMethods
    {
        private const string Library = "verify";

        /// <summary>verify_event_callback: user_data, then the borrowed event.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Winapi)]
        internal delegate void EventCallback(IntPtr userData, IntPtr nativeEvent);

        /// <summary>verify_log_callback: user_data, the level, then the borrowed message.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Winapi)]
        internal delegate void LogCallback(IntPtr userData, int level, IntPtr message);

        // Client. `options` is optional: IntPtr.Zero or a handle the caller holds a reference on.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_new_with_options(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string baseUrl,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string appId,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string appKey,
            IntPtr options,
            out ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_client_free(IntPtr client);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_set_timeouts(ClientHandle client, uint connectMs, uint callMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_init(ClientHandle client, out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_call(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string action,
            [MarshalAs(UnmanagedType.LPArray, ArraySubType = UnmanagedType.LPUTF8Str)] string[] keys,
            [MarshalAs(UnmanagedType.LPArray, ArraySubType = UnmanagedType.LPUTF8Str)] string[] values,
            UIntPtr count,
            out ReplyHandle reply);

        // `cancel` is optional: IntPtr.Zero, or the handle of a CancelHandle the caller holds a
        // reference on.
        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_social_login_wait(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string state,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            uint intervalMs,
            uint timeoutMs,
            IntPtr cancel,
            out ReplyHandle reply);

        // Library-wide. Returned strings are static or borrowed: IntPtr, copied by Utf8.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_code_describe(int code);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_code_user_message(int code,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string lang);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_set_language([MarshalAs(UnmanagedType.LPUTF8Str)] string lang);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_language();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_last_error_message();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_last_error_code();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_version();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern uint verify_abi_version();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_code_page();

        // Client options (IntPtr under Hold.With: one thread at a time).

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_new(out ClientOptionsHandle options);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_client_options_free(IntPtr options);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_mirror(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string baseUrl);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_trust(IntPtr options, uint flags);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_root_pem(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pem);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_root_file(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string path);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_pin(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string sha256Base64);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_proxy(IntPtr options, int mode,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string url);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_allow_insecure_http(IntPtr options, int allow);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_timeouts(IntPtr options, uint connectMs, uint callMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_attempt_delay(IntPtr options, uint delayMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_offline_grace(IntPtr options, uint graceSeconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_start_budget(IntPtr options, uint budgetMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_clock_tolerance(IntPtr options, uint toleranceSeconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_offline(IntPtr reply, out long confirmedAt, out long graceEnd, out int reason);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_start_from_reply(ClientHandle client, IntPtr reply, IntPtr options, out KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_last_confirmed(IntPtr status, out long seconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_grace_end(IntPtr status, out long seconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_address(IntPtr options, [MarshalAs(UnmanagedType.LPUTF8Str)] string host, [MarshalAs(UnmanagedType.LPUTF8Str)] string ip);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_state_folder(IntPtr options, [MarshalAs(UnmanagedType.LPUTF8Str)] string path);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_remembered_addresses_max_age(IntPtr options, uint maxAgeSeconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_log(IntPtr options, LogCallback callback,
            IntPtr userData);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_code(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string salt,
            [Out] byte[] output,
            UIntPtr outputLength);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_code_ex(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string salt, int version,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string stateFolder,
            [Out] byte[] output, UIntPtr outputLength);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_new(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string salt,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string stateFolder, out IntPtr check);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_machine_check_free(IntPtr check);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_code(IntPtr check, out IntPtr text);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_outcome(IntPtr check, out int outcome);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_score(IntPtr check, out int score);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_note(IntPtr check, out IntPtr text);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_count(IntPtr check, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_component(IntPtr check, UIntPtr index,
            out int kind, out int state, out int weight);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_machine_component_name(int kind);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_machine_state_name(int state);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_diagnose(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string baseUrl,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string appId,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string appKey,
            IntPtr options, uint deadlineMs, out DiagnosisHandle diagnosis);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_diagnosis_free(IntPtr diagnosis);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_diagnosis_verdict(IntPtr diagnosis, out int verdict);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_diagnosis_json(IntPtr diagnosis, out IntPtr text);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_diagnosis_text(IntPtr diagnosis, out IntPtr text);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_diagnosis_text_in(IntPtr diagnosis,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string lang, out IntPtr text);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_diagnosis_count(IntPtr diagnosis, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_diagnosis_step(IntPtr diagnosis, UIntPtr index,
            out int step, out int verdict, out IntPtr key, out IntPtr message);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_virtual_new(out IntPtr report);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_machine_virtual_free(IntPtr report);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_virtual_count(IntPtr report, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_virtual_sign(IntPtr report, UIntPtr index,
            out int kind, out IntPtr detail);

        // Replies: the handle crosses as IntPtr while the caller holds a reference on its
        // ReplyHandle (Hold.With), so borrowed strings can be copied before it is released.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_code(IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_reply_message(IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_str(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out IntPtr value);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_int(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out long value);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_bool(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out int value);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_json(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out IntPtr value);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_member_count(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_member_name(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, UIntPtr index, out IntPtr name);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_array_length(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out UIntPtr length);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_reply_free(IntPtr reply);

        // Keeper options (IntPtr under Hold.With: one thread at a time).

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_new(out KeeperOptionsHandle options);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_keeper_options_free(IntPtr options);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_set_interval(IntPtr options, uint intervalMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_set_grace(IntPtr options, uint graceMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_set_ip(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string ip);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_set_callback(IntPtr options,
            EventCallback callback, IntPtr userData);

        // Keeper. `options` is optional: IntPtr.Zero or a handle the caller holds a reference on.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_start(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string token,
            int kind,
            IntPtr options,
            out KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_stop(KeeperHandle keeper);

        /// <summary>verify_keeper_stop on a raw pointer, for KeeperHandle.ReleaseHandle.</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Winapi, EntryPoint = "verify_keeper_stop")]
        internal static extern int verify_keeper_stop_raw(IntPtr keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_keeper_free(IntPtr keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_state(KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_get_status(KeeperHandle keeper, out KeeperStatusHandle status);

        // Status snapshots (IntPtr under Hold.With: the strings are borrowed from the snapshot).

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_keeper_status_free(IntPtr status);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_state(IntPtr status, out int state);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_last_code(IntPtr status, out int code);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_last_message(IntPtr status, out IntPtr message);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_remark(IntPtr status, out IntPtr remark);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_expire_at(IntPtr status, out IntPtr expireAt);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_last_success(IntPtr status, out long unixSeconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_counts(IntPtr status, out ulong succeeded, out ulong failed);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_message_count(IntPtr status, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_message(IntPtr status, UIntPtr index, out IntPtr message);

        // Cancellation.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_cancel_new(out CancelHandle cancel);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_cancel_cancel(CancelHandle cancel);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_cancel_free(IntPtr cancel);
    }
}
