using System;

namespace Verify
{
    /// <summary>The machine code's algorithm (VERIFY_MACHINE_V1, _V2).</summary>
    public enum MachineVersion
    {
        /// <summary>v1, the default: one OS identity. Frozen.</summary>
        V1 = 1,
        /// <summary>v2: several components, tolerant matching, kept in the state folder.</summary>
        V2 = 2,
    }
}
