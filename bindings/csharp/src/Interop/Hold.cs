using System;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>Holds a reference on a SafeHandle around a use of its raw pointer.</summary>
    internal static class Hold
    {
        internal static T With<T>(SafeHandle owner, Func<IntPtr, T> use)
        {
            bool added = false;
            try
            {
                owner.DangerousAddRef(ref added);
                return use(owner.DangerousGetHandle());
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
