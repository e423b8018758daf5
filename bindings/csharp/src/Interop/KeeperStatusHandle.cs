using System;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>Owns a <c>verify_keeper_status *</c> snapshot; released with verify_keeper_status_free.</summary>
    public sealed class KeeperStatusHandle : SafeHandle
    {
        /// <summary>An empty handle; the marshaller fills it from verify_keeper_get_status.</summary>
        public KeeperStatusHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>
        /// A snapshot of <paramref name="keeper"/> (verify_keeper_get_status); it takes the
        /// back-office messages queued since the previous one. The caller owns it; read it with
        /// the <see cref="KeeperStatus"/> constructor.
        /// </summary>
        public static KeeperStatusHandle Take(KeeperHandle keeper)
        {
            if (keeper == null)
            {
                throw new ArgumentNullException("keeper");
            }
            KeeperStatusHandle created;
            int code = NativeMethods.verify_keeper_get_status(keeper, out created);
            return Args.Created(code, created);
        }

        internal T With<T>(Func<IntPtr, T> read)
        {
            return Hold.With(this, read);
        }

        /// <summary>Frees the snapshot and its strings.</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_keeper_status_free(handle);
            return true;
        }
    }
}
