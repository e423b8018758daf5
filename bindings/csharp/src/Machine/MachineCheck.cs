using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>Machine code v2 and why it is what it is (<see cref="Library.CheckMachine"/>).</summary>
    [NullableContext(1)]
    public sealed class MachineCheck
    {
        internal MachineCheck(string code, MachineOutcome outcome, int score, IReadOnlyList<MachineComponent> components, string note)
        {
            Code = code;
            Outcome = outcome;
            Score = score;
            Components = components;
            Note = note;
        }

        /// <summary>The machine code: 32 uppercase hex characters.</summary>
        public string Code { get; private set; }
        /// <summary>Issued, kept, reissued.</summary>
        public MachineOutcome Outcome { get; private set; }
        /// <summary>The rule's sum.</summary>
        public int Score { get; private set; }
        /// <summary>Every component, the heaviest first.</summary>
        public IReadOnlyList<MachineComponent> Components { get; private set; }
        /// <summary>What went wrong with the store, or null.</summary>
        [Nullable(2)]
        public string Note { get; private set; }
    }
}
