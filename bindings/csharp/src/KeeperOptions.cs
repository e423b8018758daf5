using System;

namespace Verify
{
    /// <summary>
    /// Settings of a keeper: a plain object whose properties start at the library's defaults
    /// (a heartbeat every 5 minutes, 15 minutes of grace, no IP). A keeper reads them when it
    /// starts. No Dispose.
    /// </summary>
    public sealed class KeeperOptions
    {
        private TimeSpan interval = TimeSpan.FromMinutes(5);
        private TimeSpan grace = TimeSpan.FromMinutes(15);

        /// <summary>
        /// Time between heartbeats: at least 1 s (default 5 minutes, the spec's). A small random
        /// jitter is added. The first heartbeat of <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>
        /// is sent at once, that of <see cref="Client.StartKeeper(Reply, KeeperOptions)"/> one
        /// interval after the start (the login's token is fresh).
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Under 1 s or over 4294967295 ms.</exception>
        public TimeSpan Interval
        {
            get
            {
                return interval;
            }

            set
            {
                Args.Milliseconds(value, "value", 1000);
                interval = value;
            }
        }

        /// <summary>
        /// How long the session stays usable while heartbeats fail for other reasons than its
        /// end (network down), counted from the first failure: at least 1 ms (default 15
        /// minutes). Retries back off 1 s, 2 s, 4 s... up to 60 s or the interval.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Under 1 ms or over 4294967295 ms.</exception>
        public TimeSpan Grace
        {
            get
            {
                return grace;
            }

            set
            {
                Args.Milliseconds(value, "value");
                grace = value;
            }
        }

        /// <summary>The client IP reported with each heartbeat; null or "" for none (the default).</summary>
        public string Ip { get; set; }

        /// <summary>
        /// These settings as a native options handle (verify_keeper_options), for
        /// <see cref="KeeperHandle.Start(ClientHandle, string, SessionKind, KeeperOptionsHandle)"/>.
        /// The caller owns it.
        /// </summary>
        public KeeperOptionsHandle ToHandle()
        {
            Args.Optional(Ip, "Ip");
            KeeperOptionsHandle handle = KeeperOptionsHandle.Create();
            try
            {
                handle.With(p =>
                {
                    Args.Ok(NativeMethods.verify_keeper_options_set_interval(p, Args.Milliseconds(interval, "Interval", 1000)));
                    Args.Ok(NativeMethods.verify_keeper_options_set_grace(p, Args.Milliseconds(grace, "Grace")));
                    if (!string.IsNullOrEmpty(Ip))
                    {
                        Args.Ok(NativeMethods.verify_keeper_options_set_ip(p, Ip));
                    }
                    return 0;
                });
                return handle;
            }
            catch
            {
                handle.Dispose();
                throw;
            }
        }
    }
}
