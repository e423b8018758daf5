using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>What <see cref="Library.Virtualization"/> saw. It only reports.</summary>
    [NullableContext(1)]
    public sealed class MachineVirtual
    {
        internal MachineVirtual(IReadOnlyList<VirtualSign> signs)
        {
            Signs = signs;
        }

        /// <summary>Whether any sign was seen.</summary>
        public bool LooksVirtual { get { return Signs.Count > 0; } }
        /// <summary>Every sign seen.</summary>
        public IReadOnlyList<VirtualSign> Signs { get; private set; }
    }
}
