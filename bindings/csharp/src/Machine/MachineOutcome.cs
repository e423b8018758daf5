using System;

namespace Verify
{
    /// <summary>How the code of a <see cref="MachineCheck"/> came about (VERIFY_MACHINE_ISSUED...).</summary>
    public enum MachineOutcome
    {
        /// <summary>Nothing was stored: issued and stored.</summary>
        Issued = 1,
        /// <summary>The stored code was kept.</summary>
        Kept = 2,
        /// <summary>The components say another machine: a new code.</summary>
        Reissued = 3,
        /// <summary>A stored code did not open: issued again.</summary>
        StoreUnreadable = 4,
    }
}
