using System;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>Holds a reference on a SafeHandle around a use of it (what it borrows stays valid).</summary>
    internal static class Hold
    {
        internal static T With<H, T>(H owner, Func<H, T> use) where H : SafeHandle
        {
            bool added = false;
            try
            {
                owner.DangerousAddRef(ref added);
                return use(owner);
            }
            finally
            {
                if (added)
                {
                    owner.DangerousRelease();
                }
            }
        }
    }
}
