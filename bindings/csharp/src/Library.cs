using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Verify
{
    /// <summary>Library-wide functions: versions, code descriptions, the thread's last error, the machine code.</summary>
    [NullableContext(1)]
    public static class Library
    {
        /// <summary>The ABI version this binding was written for (VERIFY_ABI_VERSION of verify.h).</summary>
        public const uint BindingAbiVersion = NativeMethods.VERIFY_ABI_VERSION;

        /// <summary>Length of a machine code (VERIFY_MACHINE_CODE_LEN): 32 uppercase hex characters.</summary>
        public const int MachineCodeLength = NativeMethods.VERIFY_MACHINE_CODE_LEN;

        /// <summary>The library version, e.g. "0.2.0".</summary>
        public static string Version
        {
            get { return Loader.Call(() => Utf8.FromNative(NativeMethods.verify_version())); }
        }

        /// <summary>The loaded library's ABI version; compare with <see cref="BindingAbiVersion"/>.</summary>
        public static uint AbiVersion
        {
            get { return Loader.Call(() => NativeMethods.verify_abi_version()); }
        }

        /// <summary>
        /// The message of the calling thread's last failed call ("" when none), copied. Per
        /// thread: meaningless after an <c>await</c> (the continuation may run on another
        /// thread). Every failure throws an exception that carries it
        /// (<see cref="Exception.Message"/> of <see cref="VerifyException"/>): read that instead.
        /// </summary>
        [Obsolete("Read the exception's Message and Code: the last error is per thread, meaningless after an await.")]
        public static string LastErrorMessage
        {
            get { return ThreadLastErrorMessage; }
        }

        /// <summary>The code of the calling thread's last failed call (0 when none); see <see cref="LastErrorMessage"/>.</summary>
        [Obsolete("Read the exception's Code: the last error is per thread, meaningless after an await.")]
        public static int LastErrorCode
        {
            get { return ThreadLastErrorCode; }
        }

        /// <summary>The calling thread's last error message, read by the binding right after a failed call.</summary>
        internal static string ThreadLastErrorMessage
        {
            get { return Utf8.FromNative(NativeMethods.verify_last_error_message()) ?? string.Empty; }
        }

        /// <summary>The calling thread's last error code, read by the binding right after a failed call.</summary>
        internal static int ThreadLastErrorCode
        {
            get { return NativeMethods.verify_last_error_code(); }
        }

        /// <summary>A static English description of any result code. Any thread.</summary>
        /// <param name="code">Any result code.</param>
        public static string Describe(ResultCode code)
        {
            return Loader.Call(() => Utf8.FromNative(NativeMethods.verify_code_describe((int)code)));
        }

        /// <summary>A static English description of any result code. Any thread.</summary>
        /// <param name="code">Any result code, as a number.</param>
        public static string Describe(int code)
        {
            return Describe((ResultCode)code);
        }

        /// <summary>
        /// The message for the end user of any result code (verify_code_user_message): short,
        /// polite, saying what to do, in <paramref name="language"/> ("zh-CN", "zh-TW", "en", or
        /// any language tag; null or empty for <see cref="Language"/>, by default the user's UI
        /// language). Show it for local results and for refusals whose server message is empty;
        /// <see cref="Describe(ResultCode)"/> stays the developer's English. Any thread.
        /// </summary>
        /// <param name="code">Any result code.</param>
        /// <param name="language">A language tag ("zh-CN", "zh-TW", "en", ...), or null or empty for <see cref="Language"/>.</param>
        public static string UserMessage(ResultCode code, [Nullable(2)] string language = null)
        {
            return Loader.Call(() => Utf8.FromNative(NativeMethods.verify_code_user_message((int)code, language)));
        }

        /// <summary>The message for the end user of any result code: see <see cref="UserMessage(ResultCode, string)"/>.</summary>
        /// <param name="code">Any result code, as a number.</param>
        /// <param name="language">A language tag ("zh-CN", "zh-TW", "en", ...), or null or empty for <see cref="Language"/>.</param>
        public static string UserMessage(int code, [Nullable(2)] string language = null)
        {
            return UserMessage((ResultCode)code, language);
        }

        /// <summary>
        /// The language of <see cref="UserMessage(ResultCode, string)"/> for the whole process
        /// (verify_language, verify_set_language): "zh-CN", "zh-TW" or "en". It starts as the
        /// user's UI language; set a language tag ("zh-CN", "zh-Hant-HK", "en-US") to choose, or
        /// null or empty to go back to the user's. Setting a tag that is not well formed throws
        /// <see cref="VerifyException"/> (InvalidArgument). Any thread.
        /// </summary>
        /// <exception cref="VerifyException">Setting a tag that is not well formed (<see cref="ResultCode.InvalidArgument"/>).</exception>
        public static string Language
        {
            get { return Loader.Call(() => Utf8.FromNative(NativeMethods.verify_language())); }
            set
            {
                int code = Loader.Call(() => NativeMethods.verify_set_language(value));
                if (code != (int)ResultCode.Ok)
                {
                    throw VerifyException.FromLastError((ResultCode)code);
                }
            }
        }

        /// <summary>
        /// The machine code of this machine for <paramref name="salt"/> (one salt per program,
        /// such as its AppId; may be empty): 32 uppercase hex characters, a salted hash of the OS
        /// machine identity, the same on every call and in every process (verify_machine_code).
        /// Pass it as the <c>mac</c> of the login calls. Any thread.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="salt"/> is null.</exception>
        /// <exception cref="VerifyException">The machine identity could not be read or created (<see cref="ResultCode.System"/>).</exception>
        /// <param name="salt">One salt per program, such as its AppId; may be empty.</param>
        /// <exception cref="ArgumentException"><paramref name="salt"/> contains a NUL character.</exception>
        public static string MachineCode(string salt)
        {
            if (salt == null)
            {
                throw new ArgumentNullException("salt");
            }
            Args.NoNul(salt, "salt");
            byte[] buffer = new byte[MachineCodeLength + 1];
            int code = Loader.Call(() => NativeMethods.verify_machine_code(salt, buffer, new UIntPtr((uint)buffer.Length)));
            return CodeIn(code, buffer);
        }

        /// <summary>
        /// The machine code of <paramref name="version"/> for <paramref name="salt"/>
        /// (verify_machine_code_ex): v1 is <see cref="MachineCode(string)"/>; v2 reads several
        /// components and keeps the code, sealed, in <paramref name="stateFolder"/> (null or empty:
        /// the per-user default) while enough of them match (docs/machine-code.md). Any thread.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="salt"/> is null.</exception>
        /// <exception cref="ArgumentException">A version that is neither V1 nor V2, or a NUL character.</exception>
        /// <exception cref="VerifyException">The OS failed.</exception>
        /// <param name="salt">One salt per program, such as its AppId; may be empty.</param>
        /// <param name="version"><see cref="MachineVersion.V1"/> or <see cref="MachineVersion.V2"/>.</param>
        /// <param name="stateFolder">The folder of the stored v2 code, or null or empty for the default.</param>
        public static string MachineCode(string salt, MachineVersion version, [Nullable(2)] string stateFolder)
        {
            Args.NotNull(salt, "salt");
            Args.Optional(stateFolder, "stateFolder");
            if (version != MachineVersion.V1 && version != MachineVersion.V2)
            {
                throw new ArgumentException("The version must be MachineVersion.V1 or MachineVersion.V2.", "version");
            }
            byte[] buffer = new byte[MachineCodeLength + 1];
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            int code = NativeMethods.verify_machine_code_ex(salt, (int)version,
                string.IsNullOrEmpty(stateFolder) ? null : stateFolder, buffer, new UIntPtr((uint)buffer.Length));
            return CodeIn(code, buffer);
        }

        /// <summary>
        /// Machine code v2 for <paramref name="salt"/> and why it is what it is
        /// (verify_machine_check_new): it issues, keeps and stores the code as
        /// <see cref="MachineCode(string, MachineVersion, string)"/> with v2 does, and lists every
        /// component with whether it matches the stored one, never its value. Any thread.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="salt"/> is null.</exception>
        /// <exception cref="VerifyException">The OS failed.</exception>
        /// <param name="salt">One salt per program, such as its AppId; may be empty.</param>
        /// <param name="stateFolder">The folder of the stored code, or null or empty for the default.</param>
        /// <exception cref="ArgumentException">A string contains a NUL character.</exception>
        public static MachineCheck CheckMachine(string salt, [Nullable(2)] string stateFolder)
        {
            Args.NotNull(salt, "salt");
            Args.Optional(stateFolder, "stateFolder");
            MachineCheckHandle check;
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            int code = NativeMethods.verify_machine_check_new(salt,
                string.IsNullOrEmpty(stateFolder) ? null : stateFolder, out check);
            if (code != (int)ResultCode.Ok)
            {
                check.Dispose();
                throw VerifyException.FromLastError((ResultCode)code);
            }
            using (check)
            {
                IntPtr text;
                NativeMethods.verify_machine_check_code(check, out text);
                string machineCode = Utf8.FromNative(text);
                int outcome, score;
                NativeMethods.verify_machine_check_outcome(check, out outcome);
                NativeMethods.verify_machine_check_score(check, out score);
                string note = NativeMethods.verify_machine_check_note(check, out text) == 0 ? Utf8.FromNative(text) : null;
                UIntPtr count;
                NativeMethods.verify_machine_check_count(check, out count);
                List<MachineComponent> components = new List<MachineComponent>();
                for (ulong i = 0; i < count.ToUInt64(); i++)
                {
                    int kind, state, weight;
                    if (NativeMethods.verify_machine_check_component(check, new UIntPtr(i), out kind, out state, out weight) != 0)
                    {
                        break;
                    }
                    components.Add(new MachineComponent((MachineComponentKind)kind,
                        Utf8.FromNative(NativeMethods.verify_machine_component_name(kind)),
                        (ComponentState)state, Utf8.FromNative(NativeMethods.verify_machine_state_name(state)), weight));
                }
                return new MachineCheck(machineCode, (MachineOutcome)outcome, score, components.AsReadOnly(), note);
            }
        }

        /// <summary>
        /// The doctor (verify_diagnose): runs every step a login depends on with the same URL,
        /// AppId, AppKey and <paramref name="options"/> (null: the defaults) as the program's
        /// <see cref="Client"/>, within <paramref name="deadline"/> (null: 10 s), and returns the
        /// report whatever its steps say. It never logs in and changes nothing on the server
        /// (Init is its only request). Blocks the calling thread; any thread.
        /// </summary>
        /// <exception cref="ArgumentNullException">An argument but <paramref name="options"/> is null.</exception>
        /// <exception cref="ArgumentException">An option the library refuses (a pin that does not parse...).</exception>
        /// <exception cref="ArgumentOutOfRangeException">A deadline under 1 ms or over UInt32.MaxValue ms.</exception>
        /// <param name="baseUrl">The service's address, as for <see cref="Client"/>.</param>
        /// <param name="appId">The program's id.</param>
        /// <param name="appKey">The program's secret (AppKey).</param>
        /// <param name="options">The client's settings, or null for the defaults.</param>
        /// <param name="deadline">The time for every step in all, or null for 10 s.</param>
        /// <exception cref="VerifyException">The library could not run the doctor (not a failed step: those are in the report).</exception>
        public static Diagnosis Diagnose(string baseUrl, string appId, string appKey,
            [Nullable(2)] ClientOptions options = null, TimeSpan? deadline = null)
        {
            Args.Required(baseUrl, "baseUrl");
            Args.Required(appId, "appId");
            Args.Required(appKey, "appKey");
            // 0: the library's default deadline.
            uint deadlineMs = deadline.HasValue ? Args.Milliseconds(deadline.Value, "deadline") : 0;
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            ClientOptionsHandle native = options == null ? null : options.ToHandle();
            try
            {
                DiagnosisHandle report;
                // No options: an empty handle, which crosses as NULL.
                int code = NativeMethods.verify_diagnose(baseUrl, appId, appKey, native ?? new ClientOptionsHandle(),
                    deadlineMs, out report);
                return Diagnosis.Take(code, report);
            }
            finally
            {
                if (native != null)
                {
                    native.Dispose();
                }
            }
        }

        /// <summary>
        /// <see cref="Diagnose"/> on a thread of its own, so that the calling thread (a UI thread)
        /// stays free. <paramref name="cancellationToken"/> cancels the task at once (awaiting it
        /// throws <see cref="OperationCanceledException"/>): a token cancelled before the doctor
        /// starts runs nothing; one cancelled while it runs leaves its steps to end by themselves
        /// within <paramref name="deadline"/> on their own threads (the doctor only reads: Init is
        /// its only request, it changes nothing on the server), and their report is dropped.
        /// </summary>
        /// <exception cref="ArgumentNullException">An argument but <paramref name="options"/> is null.</exception>
        /// <exception cref="ArgumentException">An argument is empty or contains a NUL character; (from the task) an option the library refuses.</exception>
        /// <exception cref="ArgumentOutOfRangeException">A deadline under 1 ms or over UInt32.MaxValue ms.</exception>
        /// <exception cref="VerifyException">(From the task) The library could not run the doctor.</exception>
        /// <param name="baseUrl">The service's address, as for <see cref="Client"/>.</param>
        /// <param name="appId">The program's id.</param>
        /// <param name="appKey">The program's secret (AppKey).</param>
        /// <param name="options">The client's settings, or null for the defaults.</param>
        /// <param name="deadline">The time for every step in all, or null for 10 s.</param>
        /// <param name="cancellationToken">Cancels the task at once.</param>
        public static Task<Diagnosis> DiagnoseAsync(string baseUrl, string appId, string appKey,
            [Nullable(2)] ClientOptions options = null, TimeSpan? deadline = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            Args.Required(baseUrl, "baseUrl");
            Args.Required(appId, "appId");
            Args.Required(appKey, "appKey");
            if (deadline.HasValue)
            {
                double ms = Math.Ceiling(deadline.Value.TotalMilliseconds);
                if (ms < 1 || ms > uint.MaxValue)
                {
                    throw new ArgumentOutOfRangeException("deadline", "The deadline must be 1 ms to UInt32.MaxValue ms.");
                }
            }
            Task<Diagnosis> running = Task.Factory.StartNew(() => Diagnose(baseUrl, appId, appKey, options, deadline),
                cancellationToken, TaskCreationOptions.LongRunning | TaskCreationOptions.DenyChildAttach,
                TaskScheduler.Default);
            if (!cancellationToken.CanBeCanceled)
            {
                return running;
            }
            return Cancelled(running, cancellationToken);
        }

        /// <summary><paramref name="running"/>, or a cancelled task as soon as <paramref name="cancellationToken"/> is cancelled.</summary>
        private static async Task<T> Cancelled<T>(Task<T> running, CancellationToken cancellationToken)
        {
            TaskCompletionSource<bool> cancelled =
                new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            using (cancellationToken.Register(() => cancelled.TrySetResult(true)))
            {
                if (await Task.WhenAny(running, cancelled.Task).ConfigureAwait(false) != running)
                {
                    throw new OperationCanceledException(cancellationToken);
                }
            }
            return await running.ConfigureAwait(false);
        }

        /// <summary>
        /// Whether this machine looks virtual or containerised, and what was seen: CPUID's
        /// hypervisor bit, firmware strings of virtual machines, container markers
        /// (verify_machine_virtual_new). It only reports. Any thread.
        /// </summary>
        /// <exception cref="VerifyException">The OS failed.</exception>
        public static MachineVirtual Virtualization()
        {
            MachineVirtualHandle report;
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            int code = NativeMethods.verify_machine_virtual_new(out report);
            if (code != (int)ResultCode.Ok)
            {
                report.Dispose();
                throw VerifyException.FromLastError((ResultCode)code);
            }
            using (report)
            {
                UIntPtr count;
                NativeMethods.verify_machine_virtual_count(report, out count);
                List<VirtualSign> signs = new List<VirtualSign>();
                for (ulong i = 0; i < count.ToUInt64(); i++)
                {
                    int kind;
                    IntPtr detail;
                    if (NativeMethods.verify_machine_virtual_sign(report, new UIntPtr(i), out kind, out detail) != 0)
                    {
                        break;
                    }
                    signs.Add(new VirtualSign((VirtualSignKind)kind, Utf8.FromNative(detail)));
                }
                return new MachineVirtual(signs.AsReadOnly());
            }
        }

        /// <summary>The machine code a call wrote into <paramref name="buffer"/>, or its failure thrown.</summary>
        private static string CodeIn(int code, byte[] buffer)
        {
            if (code != (int)ResultCode.Ok)
            {
                throw VerifyException.FromLastError((ResultCode)code);
            }
            int length = Array.IndexOf(buffer, (byte)0);
            return Encoding.ASCII.GetString(buffer, 0, length < 0 ? MachineCodeLength : length);
        }

        /// <summary>The code page this binding passes strings in: UTF-8 (VERIFY_CODE_PAGE_UTF8).</summary>
        public const int Utf8CodePage = (int)Verify.CodePage.Utf8;

        /// <summary>
        /// The library's code page for the whole process (verify_code_page): 65001, UTF-8, unless
        /// a native part of the process called verify_set_code_page. This binding always passes
        /// and reads UTF-8; creating a client throws <see cref="NotSupportedException"/> under
        /// another code page.
        /// </summary>
        public static int CodePage
        {
            get { return Loader.Call(() => NativeMethods.verify_code_page()); }
        }

        /// <summary>
        /// Throws unless the loaded library has the ABI this binding was written for and
        /// speaks UTF-8.
        /// </summary>
        internal static void CheckAbi()
        {
            if (Volatile.Read(ref abiChecked))
            {
                return;
            }
            uint abi = Loader.Call(() => NativeMethods.verify_abi_version());
            if (abi != BindingAbiVersion)
            {
                throw new NotSupportedException(string.Format(
                    "the verify library has ABI version {0}; this binding needs {1}", abi, BindingAbiVersion));
            }
            int codePage = NativeMethods.verify_code_page();
            if (codePage != Utf8CodePage)
            {
                throw new NotSupportedException(string.Format(
                    "the verify library's code page is {0} (verify_set_code_page); this binding passes UTF-8 (65001)",
                    codePage));
            }
            Volatile.Write(ref abiChecked, true);
        }

        private static bool abiChecked;
    }
}
