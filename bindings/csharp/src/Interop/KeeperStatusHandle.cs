using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    // The hand-written part of KeeperStatusHandle (Generated/KeeperStatusHandle.g.cs): taking a snapshot.
    public sealed partial class KeeperStatusHandle
    {
        /// <summary>
        /// A snapshot of <paramref name="keeper"/> (verify_keeper_get_status); it takes the
        /// back-office messages queued since the previous one. The caller owns it; read it with
        /// the <see cref="KeeperStatus"/> constructor.
        /// </summary>
        /// <param name="keeper">A started keeper's handle.</param>
        /// <exception cref="ArgumentNullException"><paramref name="keeper"/> is null.</exception>
        /// <exception cref="VerifyException">The library could not take the snapshot.</exception>
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
    }
}
