using System;

namespace Verify
{
    /// <summary>A sign of virtualisation (VERIFY_VIRTUAL_*); later versions may add values.</summary>
    public enum VirtualSignKind
    {
        /// <summary>CPUID's hypervisor bit; the detail is the hypervisor's vendor.</summary>
        HypervisorBit = 1,
        /// <summary>A firmware string of a virtual machine.</summary>
        Firmware = 2,
        /// <summary>A container marker.</summary>
        Container = 3,
        /// <summary>The OS says it runs under a hypervisor.</summary>
        System = 4,
    }
}
