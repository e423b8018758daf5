namespace Verify
{
    /// <summary>
    /// The state of a licence (a card or an account) as a reply's <c>status</c> says it:
    /// the typed form of the server's word (the replies' <c>State</c>; their <c>Status</c>
    /// keeps the word). A word this binding does not know is <see cref="Unknown"/>.
    /// </summary>
    public enum LicenceState
    {
        /// <summary>No status, or a word this binding does not know.</summary>
        Unknown = 0,
        /// <summary><c>unused</c>: a card not activated yet.</summary>
        Unused,
        /// <summary><c>active</c>: in use and valid.</summary>
        Active,
        /// <summary><c>expired</c>: its time is over.</summary>
        Expired,
        /// <summary><c>exhausted</c>: a count card with no use left.</summary>
        Exhausted,
        /// <summary><c>used</c>: a recharge card already spent on an account.</summary>
        Used,
        /// <summary><c>disabled</c>: disabled or frozen in the back office.</summary>
        Disabled,
        /// <summary><c>refunded</c>: a card refunded.</summary>
        Refunded,
        /// <summary><c>banned</c>: an account banned in the back office.</summary>
        Banned,
    }
}
