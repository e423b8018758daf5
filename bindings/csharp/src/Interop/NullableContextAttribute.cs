// NullableContextAttribute.cs: the default nullability of a type's or method's members for C#
// 8+ compilers (Roslyn), declared here because mcs (C# 7) cannot write it by itself.

namespace System.Runtime.CompilerServices
{
    /// <summary>
    /// The nullability of every reference type in the members of a type or method that has no
    /// <see cref="NullableAttribute"/> of its own (0 oblivious, 1 not null, 2 may be null);
    /// Roslyn looks at the member, then its method, then the type and the types around it.
    /// The binding's types carry 1: not null unless a member says it may be.
    /// </summary>
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Delegate | AttributeTargets.Interface |
        AttributeTargets.Method | AttributeTargets.Struct, AllowMultiple = false, Inherited = false)]
    internal sealed class NullableContextAttribute : Attribute
    {
        /// <summary>The flag.</summary>
        public readonly byte Flag;

        /// <summary>The default nullability of the members.</summary>
        /// <param name="value">0 oblivious, 1 not null, 2 may be null.</param>
        public NullableContextAttribute(byte value)
        {
            Flag = value;
        }
    }
}
