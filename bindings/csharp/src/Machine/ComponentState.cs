using System;

namespace Verify
{
    /// <summary>How a component compares with the stored one (VERIFY_COMPONENT_*).</summary>
    public enum ComponentState
    {
        /// <summary>Read, equal to the stored one.</summary>
        Matches = 1,
        /// <summary>Read, not the stored one.</summary>
        Differs = 2,
        /// <summary>Read, nothing stored to compare with.</summary>
        NotStored = 3,
        /// <summary>Not readable now.</summary>
        Unreadable = 4,
        /// <summary>A known placeholder value (counts nothing).</summary>
        Placeholder = 5,
    }
}
