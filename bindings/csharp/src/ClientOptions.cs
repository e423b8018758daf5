using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>
    /// Settings of a <see cref="Client"/>: a plain object whose properties start at the
    /// library's defaults (no mirror, Mozilla's roots, the system's proxy, plain http only to
    /// loopback, timeouts 10 s and 30 s, an attempt delay of 250 ms, no state folder, no offline
    /// verdicts, no log, refusals returned rather than thrown). A client reads them when it is
    /// made, so they may be changed or reused afterwards. No Dispose. A value out of range
    /// throws <see cref="ArgumentOutOfRangeException"/> when set; what the library refuses (a
    /// mirror that is not a URL, a pin that does not parse) throws
    /// <see cref="ArgumentException"/> from the <see cref="Client"/> constructor.
    /// </summary>
    /// <example>
    /// <code>
    /// var options = new ClientOptions
    /// {
    ///     ConnectTimeout = TimeSpan.FromSeconds(5),
    ///     UseDefaultStateFolder = true,
    ///     OfflineGrace = TimeSpan.FromDays(7),
    ///     ThrowOnRefusal = true,
    /// };
    /// options.Mirrors.Add("https://backup.example.com");
    /// </code>
    /// </example>
    [NullableContext(1)]
    public sealed class ClientOptions
    {
        /// <summary>
        /// The former way to ask for the per-user default folder: <see cref="StateFolder"/> set to
        /// "" (this constant) still means it. Prefer <see cref="UseDefaultStateFolder"/>.
        /// </summary>
        public const string DefaultStateFolder = "";

        private TimeSpan connectTimeout = TimeSpan.FromSeconds(10);
        private TimeSpan callTimeout = TimeSpan.FromSeconds(30);
        private TimeSpan attemptDelay = TimeSpan.FromMilliseconds(250);
        private TimeSpan? offlineGrace;
        private TimeSpan? startBudget;
        private TimeSpan? clockTolerance;
        private TimeSpan? rememberedAddressesMaxAge;

        /// <summary>The defaults.</summary>
        public ClientOptions()
        {
            Mirrors = new List<string>();
            RootPems = new List<string>();
            RootFiles = new List<string>();
            Pins = new List<string>();
            Addresses = new List<KeyValuePair<string, string>>();
            Trust = TrustStores.Mozilla;
            Proxy = ProxyMode.System;
        }

        /// <summary>
        /// Other base URLs of the same service. A new connection races them with the first (see
        /// <see cref="AttemptDelay"/>); a request that may have reached a server is never sent to
        /// another.
        /// </summary>
        public IList<string> Mirrors { get; private set; }

        /// <summary>
        /// The trust stores: <see cref="TrustStores.Mozilla"/> (the default),
        /// <see cref="TrustStores.System"/>, both, or <see cref="TrustStores.None"/> (then only
        /// <see cref="RootPems"/>, <see cref="RootFiles"/> and <see cref="Pins"/> are trusted).
        /// Verification cannot be turned off.
        /// </summary>
        public TrustStores Trust { get; set; }

        /// <summary>PEM texts whose certificates are trusted as roots, in addition to the stores.</summary>
        public IList<string> RootPems { get; private set; }

        /// <summary>PEM files whose certificates are trusted as roots (read when the client is made).</summary>
        public IList<string> RootFiles { get; private set; }

        /// <summary>
        /// Pinned keys of the service's certificate chain: base64 of the SHA-256 of a DER
        /// SubjectPublicKeyInfo (a <c>sha256/</c> prefix is accepted). A pinned self-signed
        /// certificate works without a CA; a chain without a pinned key fails with
        /// <see cref="ResultCode.Pin"/>.
        /// </summary>
        public IList<string> Pins { get; private set; }

        /// <summary>How the client reaches the service: the system's settings (the default), none, or <see cref="ProxyUrl"/>. Loopback never goes through a proxy.</summary>
        public ProxyMode Proxy { get; set; }

        /// <summary>For <see cref="ProxyMode.Url"/>: http://, https:// (CONNECT), socks5:// or socks5h://, with an optional user:password@.</summary>
        [Nullable(2)]
        public string ProxyUrl { get; set; }

        /// <summary>
        /// Whether plain http:// to a host that is not loopback is allowed (default false): the
        /// api password travels in an HTTP header, readable by anyone on the path.
        /// </summary>
        public bool AllowInsecureHttp { get; set; }

        /// <summary>The connect timeout: 1 ms to 4294967295 ms (default 10 s).</summary>
        /// <exception cref="ArgumentOutOfRangeException">Out of that range.</exception>
        public TimeSpan ConnectTimeout
        {
            get { return connectTimeout; }
            set { Args.Milliseconds(value, "value"); connectTimeout = value; }
        }

        /// <summary>
        /// The whole-call timeout: 1 ms to 4294967295 ms (default 30 s). It bounds everything one
        /// call does (a lazy Init, a re-Init, connects, a resend).
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Out of that range.</exception>
        public TimeSpan CallTimeout
        {
            get { return callTimeout; }
            set { Args.Milliseconds(value, "value"); callTimeout = value; }
        }

        /// <summary>
        /// The attempt delay of racing connections (RFC 8305; default 250 ms, at most 10 s, zero
        /// starts every attempt at once): every address of the host name (IPv6 and IPv4 in turn)
        /// and every mirror gets an attempt when the earlier ones have not connected within it;
        /// the first to finish TCP and TLS wins. No request is ever sent twice because of it.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 10 s.</exception>
        public TimeSpan AttemptDelay
        {
            get
            {
                return attemptDelay;
            }

            set
            {
                if (value < TimeSpan.Zero || value > TimeSpan.FromSeconds(10))
                {
                    throw new ArgumentOutOfRangeException("value", value, "The attempt delay must be between 0 and 10 seconds.");
                }
                attemptDelay = value;
            }
        }

        /// <summary>
        /// Fixed addresses (IPv4 or IPv6) for host names, like curl's --resolve: host to ip. A
        /// listed name is never looked up in DNS, and TLS still checks it.
        /// </summary>
        public IList<KeyValuePair<string, string>> Addresses { get; private set; }

        /// <summary>
        /// The client's state folder, the one place for state that outlives the process (the
        /// remembered winning line of racing connections and its name's addresses, the last good
        /// verdict): a folder, or null (the default): none, unless
        /// <see cref="UseDefaultStateFolder"/> asks for the per-user default. Each file there is
        /// sealed for this program and machine. "" (<see cref="DefaultStateFolder"/>) is the
        /// former spelling of <see cref="UseDefaultStateFolder"/> and still means the per-user
        /// default.
        /// </summary>
        [Nullable(2)]
        public string StateFolder { get; set; }

        /// <summary>
        /// True: state goes to the per-user default folder (<c>%LOCALAPPDATA%\verify\state</c> on
        /// Windows, <c>$XDG_STATE_HOME/verify</c> or <c>~/.local/state/verify</c> on Linux,
        /// <c>~/Library/Application Support/verify/state</c> on macOS)
        /// when <see cref="StateFolder"/> names no folder. False (the default): only
        /// <see cref="StateFolder"/> decides. A <see cref="StateFolder"/> path wins over it.
        /// </summary>
        public bool UseDefaultStateFolder { get; set; }

        /// <summary>
        /// With a <see cref="StateFolder"/>: how long the addresses of the winning line's host
        /// name (an https base URL's) stay in use after they were last seen connecting. A later start connects to them
        /// at once beside a fresh lookup, so that it does not wait for a slow name server; TLS
        /// still checks the name and fixed <see cref="Addresses"/> still win. Zero: neither
        /// remembered nor used. Null (the default): a day. Whole seconds.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 4294967295 s.</exception>
        public TimeSpan? RememberedAddressesMaxAge
        {
            get { return rememberedAddressesMaxAge; }
            set { if (value.HasValue) { Args.Seconds(value.Value, "value"); } rememberedAddressesMaxAge = value; }
        }

        /// <summary>
        /// Offline verdicts (a <see cref="StateFolder"/> needed): a login that cannot reach the
        /// service answers from the stored verdict (<see cref="Reply.IsOffline"/>) when the server
        /// confirmed it less than this long ago. Null (the default) or zero: off. Whole seconds.
        /// An outage is a failed connection, a timeout, or a reply that is not the service's
        /// (HTTP 5xx such as 502/503/504/522, HTML, empty, cut short, a captive portal's page);
        /// a reply of the service (JSON with a code) never is. In account mode a wrong password
        /// offline is <see cref="ResultCode.OfflinePassword"/>; a state folder that cannot be
        /// written refuses the client (<see cref="ResultCode.StateFolder"/>).
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 4294967295 s.</exception>
        public TimeSpan? OfflineGrace
        {
            get { return offlineGrace; }
            set { if (value.HasValue) { Args.Seconds(value.Value, "value"); } offlineGrace = value; }
        }

        /// <summary>
        /// A start that never waits long (offline verdicts needed): past this budget a login
        /// whose stored verdict may answer gets it, and the login goes on in the background
        /// (follow it with <see cref="Client.StartKeeper(Reply, KeeperOptions)"/>). Null (the
        /// default): no budget.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 4294967295 ms.</exception>
        public TimeSpan? StartBudget
        {
            get { return startBudget; }
            set { if (value.HasValue) { Args.Milliseconds(value.Value, "value", 0); } startBudget = value; }
        }

        /// <summary>
        /// How far the local clock may be behind the latest server time seen before offline
        /// verdicts are refused (<see cref="ResultCode.ClockBack"/>); null: 10 minutes. Whole seconds.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 4294967295 s.</exception>
        public TimeSpan? ClockTolerance
        {
            get { return clockTolerance; }
            set { if (value.HasValue) { Args.Seconds(value.Value, "value"); } clockTolerance = value; }
        }

        /// <summary>
        /// Receives the client's log: connect, TLS, proxy, retry, failover and re-Init events,
        /// in English, never with a secret (no api password, AppKey, card key, password, token
        /// or machine code). Null for none (the default).
        /// </summary>
        /// <remarks>
        /// It runs on the thread that makes the call (a keeper's heartbeats: the keeper's
        /// thread), so it may run on several threads at once; it should return quickly.
        /// Exceptions it throws are caught and dropped. A client made with these options keeps
        /// the handler alive until it is freed.
        /// </remarks>
        // Action<LogLevel, string>?: the handler may be null, the message it gets never is.
        [Nullable(new byte[] { 2, 1 })]
        public Action<LogLevel, string> OnLog { get; set; }

        /// <summary>
        /// The throwing form for every call of the client (default false): a refusal by the
        /// server throws <see cref="VerifyRefusedException"/> (code, message, remark;
        /// <see cref="VerifyConfigurationException"/> for 1001, 1010, 1011, 1012) instead of
        /// coming back as a reply. Pending (201) and offline verdicts (202) are not refusals.
        /// </summary>
        public bool ThrowOnRefusal { get; set; }

        /// <summary>Adds a mirror (<see cref="Mirrors"/>).</summary>
        /// <param name="baseUrl">Another base URL of the service, http:// or https://.</param>
        /// <exception cref="ArgumentNullException"><paramref name="baseUrl"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="baseUrl"/> is empty or contains a NUL character.</exception>
        public void AddMirror(string baseUrl)
        {
            Args.Required(baseUrl, "baseUrl");
            Mirrors.Add(baseUrl);
        }

        /// <summary>Adds a fixed address for a host name (<see cref="Addresses"/>).</summary>
        /// <param name="host">The host name.</param>
        /// <param name="ip">Its IPv4 or IPv6 address.</param>
        /// <exception cref="ArgumentNullException"><paramref name="host"/> or <paramref name="ip"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="host"/> or <paramref name="ip"/> is empty or contains a NUL character.</exception>
        public void AddAddress(string host, string ip)
        {
            Args.Required(host, "host");
            Args.Required(ip, "ip");
            Addresses.Add(new KeyValuePair<string, string>(host, ip));
        }

        /// <summary>
        /// These settings as a native options handle (verify_client_options), for
        /// <see cref="ClientHandle.Create"/>. The caller owns it.
        /// </summary>
        /// <exception cref="ArgumentException">A setting the library refuses (the message says which and why).</exception>
        /// <exception cref="VerifyException">The library could not make the options or refused one (<see cref="ResultCode.InvalidArgument"/>: the message says which).</exception>
        public ClientOptionsHandle ToHandle()
        {
            ClientOptionsHandle handle = ClientOptionsHandle.Create();
            try
            {
                handle.With(p =>
                {
                    foreach (string mirror in Mirrors)
                    {
                        Args.Required(mirror, "options.Mirrors");
                        Setting(NativeMethods.verify_client_options_add_mirror(p, mirror));
                    }
                    Setting(NativeMethods.verify_client_options_set_trust(p, (uint)Trust));
                    foreach (string pem in RootPems)
                    {
                        Args.Required(pem, "options.RootPems");
                        Setting(NativeMethods.verify_client_options_add_root_pem(p, pem));
                    }
                    foreach (string file in RootFiles)
                    {
                        Args.Required(file, "options.RootFiles");
                        Setting(NativeMethods.verify_client_options_add_root_file(p, file));
                    }
                    foreach (string pin in Pins)
                    {
                        Args.Required(pin, "options.Pins");
                        Setting(NativeMethods.verify_client_options_add_pin(p, pin));
                    }
                    Args.Optional(ProxyUrl, "options.ProxyUrl");
                    Setting(NativeMethods.verify_client_options_set_proxy(p, (int)Proxy,
                        Proxy == ProxyMode.Url ? ProxyUrl : null));
                    Setting(NativeMethods.verify_client_options_allow_insecure_http(p, AllowInsecureHttp ? 1 : 0));
                    Setting(NativeMethods.verify_client_options_set_timeouts(p,
                        Args.Milliseconds(connectTimeout, "ConnectTimeout"), Args.Milliseconds(callTimeout, "CallTimeout")));
                    Setting(NativeMethods.verify_client_options_set_attempt_delay(p,
                        Args.Milliseconds(attemptDelay, "AttemptDelay", 0)));
                    foreach (KeyValuePair<string, string> address in Addresses)
                    {
                        Args.Required(address.Key, "options.Addresses");
                        Args.Required(address.Value, "options.Addresses");
                        Setting(NativeMethods.verify_client_options_add_address(p, address.Key, address.Value));
                    }
                    if (!string.IsNullOrEmpty(StateFolder))
                    {
                        Args.Optional(StateFolder, "options.StateFolder");
                        Setting(NativeMethods.verify_client_options_set_state_folder(p, StateFolder));
                    }
                    else if (StateFolder != null || UseDefaultStateFolder)
                    {
                        Setting(NativeMethods.verify_client_options_set_state_folder(p, null));
                    }
                    if (rememberedAddressesMaxAge.HasValue)
                    {
                        Setting(NativeMethods.verify_client_options_set_remembered_addresses_max_age(p,
                            Args.Seconds(rememberedAddressesMaxAge.Value, "RememberedAddressesMaxAge")));
                    }
                    if (offlineGrace.HasValue)
                    {
                        Setting(NativeMethods.verify_client_options_set_offline_grace(p,
                            Args.Seconds(offlineGrace.Value, "OfflineGrace")));
                    }
                    if (startBudget.HasValue)
                    {
                        Setting(NativeMethods.verify_client_options_set_start_budget(p,
                            Args.Milliseconds(startBudget.Value, "StartBudget", 0)));
                    }
                    if (clockTolerance.HasValue)
                    {
                        Setting(NativeMethods.verify_client_options_set_clock_tolerance(p,
                            Args.Seconds(clockTolerance.Value, "ClockTolerance")));
                    }
                    return 0;
                });
                handle.SetOnLog(OnLog);
                return handle;
            }
            catch
            {
                handle.Dispose();
                throw;
            }
        }

        /// <summary>A setter's code: 200, or an <see cref="ArgumentException"/> with the library's reason.</summary>
        private static void Setting(int code)
        {
            if (code == (int)ResultCode.Ok)
            {
                return;
            }
            VerifyException error = VerifyException.FromLastError((ResultCode)code);
            if (code == (int)ResultCode.InvalidArgument)
            {
                throw new ArgumentException(error.Message, "options", error);
            }
            throw error;
        }
    }
}
