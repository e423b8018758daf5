using System;
using System.Collections.Generic;

namespace Verify
{
    /// <summary>What <see cref="Library.Virtualization"/> saw. It only reports.</summary>
    public sealed class MachineVirtual
    {
        internal MachineVirtual(IList<VirtualSign> signs)
        {
            Signs = signs;
        }

        /// <summary>Whether any sign was seen.</summary>
        public bool LooksVirtual { get { return Signs.Count > 0; } }
        /// <summary>Every sign seen.</summary>
        public IList<VirtualSign> Signs { get; private set; }
    }
}
