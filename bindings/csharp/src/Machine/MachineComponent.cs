using System;

namespace Verify
{
    /// <summary>One component of a <see cref="MachineCheck"/>: never its value.</summary>
    public sealed class MachineComponent
    {
        internal MachineComponent(MachineComponentKind kind, string name, ComponentState state, string stateName, int weight)
        {
            Kind = kind;
            Name = name;
            State = state;
            StateName = stateName;
            Weight = weight;
        }

        /// <summary>Which component.</summary>
        public MachineComponentKind Kind { get; private set; }
        /// <summary>Its name ("board_uuid", ...).</summary>
        public string Name { get; private set; }
        /// <summary>Whether it matches the stored one.</summary>
        public ComponentState State { get; private set; }
        /// <summary>The state's name ("matches", ...).</summary>
        public string StateName { get; private set; }
        /// <summary>Its weight in the rule.</summary>
        public int Weight { get; private set; }
    }
}
