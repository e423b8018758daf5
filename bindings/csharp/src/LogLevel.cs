using System;

namespace Verify
{
    /// <summary>
    /// The level of a log message (VERIFY_LOG_*). Later versions may add levels: a value not
    /// named here is kept as its number.
    /// </summary>
    public enum LogLevel
    {
        /// <summary>A call failed because of it.</summary>
        Error = 1,

        /// <summary>Something went wrong and was handled (a retry, a failover, a re-Init).</summary>
        Warn = 2,

        /// <summary>A notable step (a new connection, an Init).</summary>
        Info = 3,

        /// <summary>Details.</summary>
        Debug = 4,
    }
}
