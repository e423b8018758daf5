using System;

namespace Verify
{
    /// <summary>How a step of the doctor went (VERIFY_VERDICT_*), from best to worst.</summary>
    public enum Verdict
    {
        /// <summary>It worked.</summary>
        Pass = 0,
        /// <summary>Not run (not needed with these options, or no time left).</summary>
        Skip = 1,
        /// <summary>It worked, with something to know.</summary>
        Warn = 2,
        /// <summary>It failed: one of the reasons the program cannot log in.</summary>
        Fail = 3,
    }
}
