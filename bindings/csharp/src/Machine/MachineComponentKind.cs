using System;

namespace Verify
{
    /// <summary>A component of machine code v2 (VERIFY_MACHINE_*); later versions may add values.</summary>
    public enum MachineComponentKind
    {
        /// <summary>The SMBIOS system UUID.</summary>
        BoardUuid = 1,
        /// <summary>The board's serial number.</summary>
        BoardSerial = 2,
        /// <summary>The OS installation (MachineGuid, /etc/machine-id).</summary>
        OsInstall = 3,
        /// <summary>The system volume (its serial, the root file system's UUID).</summary>
        SystemVolume = 4,
        /// <summary>The processor's signature.</summary>
        Cpu = 5,
        /// <summary>The machine's model names.</summary>
        Model = 6,
    }
}
