using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>
    /// A snapshot of a keeper (verify_keeper_get_status and its accessors), copied: it stays valid
    /// and never changes. From <see cref="Keeper.Status"/>.
    /// </summary>
    [NullableContext(1)]
    public sealed class KeeperStatus
    {
        /// <summary>Reads every accessor of a snapshot handle (which the caller still owns).</summary>
        /// <param name="handle">A snapshot handle (<see cref="KeeperStatusHandle.Take"/>).</param>
        /// <exception cref="ArgumentNullException"><paramref name="handle"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="handle"/> is invalid (NULL).</exception>
        /// <exception cref="ObjectDisposedException"><paramref name="handle"/> was disposed.</exception>
        public KeeperStatus(KeeperStatusHandle handle)
        {
            Args.Usable(handle, "handle");
            handle.With(p =>
            {
                int state;
                Args.Ok(NativeMethods.verify_keeper_status_state(p, out state), 0);
                State = (KeeperState)state;
                int lastCode;
                Args.Ok(NativeMethods.verify_keeper_status_last_code(p, out lastCode), 0);
                LastCode = (ResultCode)lastCode;
                IntPtr text;
                Args.Ok(NativeMethods.verify_keeper_status_last_message(p, out text), 0);
                LastMessage = Utf8.FromNative(text) ?? string.Empty;
                Remark = Optional(NativeMethods.verify_keeper_status_remark(p, out text), text);
                ExpireAtText = Optional(NativeMethods.verify_keeper_status_expire_at(p, out text), text);
                ExpireAt = ServiceTime.Parse(ExpireAtText);
                long lastSuccess;
                int code = NativeMethods.verify_keeper_status_last_success(p, out lastSuccess);
                if (code != (int)ResultCode.NoSuchField)
                {
                    Args.Ok(code, 0);
                    LastSuccess = ServiceTime.FromUnixSeconds(lastSuccess);
                }
                LastConfirmed = OptionalTime(NativeMethods.verify_keeper_status_last_confirmed(p, out lastSuccess), lastSuccess);
                GraceEnd = OptionalTime(NativeMethods.verify_keeper_status_grace_end(p, out lastSuccess), lastSuccess);
                ulong succeeded, failed;
                Args.Ok(NativeMethods.verify_keeper_status_counts(p, out succeeded, out failed), 0);
                Succeeded = Saturate(succeeded);
                Failed = Saturate(failed);
                UIntPtr count;
                Args.Ok(NativeMethods.verify_keeper_status_message_count(p, out count), 0);
                List<string> messages = new List<string>();
                for (ulong i = 0; i < count.ToUInt64(); i++)
                {
                    string message = Optional(NativeMethods.verify_keeper_status_message(p, new UIntPtr(i), out text), text);
                    if (message != null)
                    {
                        messages.Add(message);
                    }
                }
                Notices = messages.AsReadOnly();
                return 0;
            });
        }

        /// <summary>Alive, in grace, ended, or (kept as its number) a state of a later library.</summary>
        public KeeperState State { get; private set; }

        /// <summary>Whether <see cref="State"/> is Alive or Grace (the session is usable).</summary>
        public bool IsAlive
        {
            get { return IsAliveState(State); }
        }

        /// <summary>The code of the last heartbeat; 0 before the first.</summary>
        public ResultCode LastCode { get; private set; }

        /// <summary>The message of the last heartbeat ("" after a success or before the first).</summary>
        public string LastMessage { get; private set; }

        /// <summary>The remark of the last refusal (the reason of a 1006), or null.</summary>
        [Nullable(2)]
        public string Remark { get; private set; }

        /// <summary>The session's expiry from the last successful heartbeat (the service's time, UTC+08:00), or null before the first.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary>The session's expiry as the server wrote it (<c>YYYY-MM-DD HH:mm:ss</c>, UTC+08:00), or null.</summary>
        [Nullable(2)]
        public string ExpireAtText { get; private set; }

        /// <summary>When the last heartbeat succeeded (whole seconds, UTC), or null before the first success.</summary>
        public DateTimeOffset? LastSuccess { get; private set; }

        /// <summary>
        /// When the server last confirmed the licence (with offline verdicts on: the stored
        /// verdict's confirmation, carried across restarts), or null.
        /// </summary>
        public DateTimeOffset? LastConfirmed { get; private set; }

        /// <summary>When the grace period ends while heartbeats fail or the session is offline; null while alive.</summary>
        public DateTimeOffset? GraceEnd { get; private set; }

        /// <summary>How many heartbeats succeeded (a <c>long</c>, CLS-compliant; never negative).</summary>
        public long Succeeded { get; private set; }

        /// <summary>How many heartbeats failed, for any reason (a <c>long</c>, CLS-compliant; never negative).</summary>
        public long Failed { get; private set; }

        /// <summary>A native count as a long: <see cref="long.MaxValue"/> past it (never reached in practice).</summary>
        private static long Saturate(ulong count)
        {
            return count > long.MaxValue ? long.MaxValue : (long)count;
        }

        /// <summary>
        /// The back-office messages (notices) received since the previous snapshot, oldest
        /// first; each is returned once. Filled only for a keeper without an event handler (a
        /// handler gets them as <see cref="Keeper.NoticeReceived"/> events instead). Never null.
        /// </summary>
        public IReadOnlyList<string> Notices { get; private set; }

        /// <summary>The former form of <see cref="Notices"/>: the same notices, as an array.</summary>
        [Obsolete("Use Notices (read-only): the back-office messages; LastMessage is the heartbeat's.")]
        public string[] Messages
        {
            get { return new List<string>(Notices).ToArray(); }
        }

        /// <summary>The notices of the snapshot and those the keeper queued itself.</summary>
        internal void ReplaceNotices(List<string> all)
        {
            Notices = all.AsReadOnly();
        }

        /// <summary>True for Alive and Grace; false for Ended and for any state this binding does not know.</summary>
        /// <param name="state">A keeper's state.</param>
        public static bool IsAliveState(KeeperState state)
        {
            return state == KeeperState.Alive || state == KeeperState.Grace;
        }

        private static string Optional(int code, IntPtr text)
        {
            if (code == (int)ResultCode.NoSuchField)
            {
                return null;
            }
            Args.Ok(code, 0);
            return Utf8.FromNative(text);
        }

        private static DateTimeOffset? OptionalTime(int code, long seconds)
        {
            if (code == (int)ResultCode.NoSuchField)
            {
                return null;
            }
            Args.Ok(code, 0);
            return ServiceTime.FromUnixSeconds(seconds);
        }
    }
}
