// CsharpSurface.cs: reads the public surface of the packaged C# assembly by reflection on Mono,
// with its XML documentation, and prints one line per finding for tests/csharp/surface.rs:
//
//   MEMBER <id>                      every public or protected member (its XML doc id)
//   NODOC <id>                       a member with no entry in the XML documentation
//   NOPARAM <id> <name>              a parameter without its <param name="...">
//   NOEXCEPTION <id> <type>          an exception the member's IL throws (itself or through
//                                    the assembly's methods it calls; a callee's argument
//                                    exceptions only when the call passes the member's own
//                                    arguments) that no <exception cref> names (it or a base)
//   NULLABLE <position> <flag>       the nullability Roslyn reads for a position of reference
//                                    type: 0 oblivious, 1 not null, 2 may be null
//   NESTED <position> <flags>        for a position whose type has type arguments or array
//                                    elements of reference type: the flag Roslyn reads for each
//                                    of those, in its order (`Action<LogLevel, string>`: the
//                                    `string`), comma-separated
//
// Positions: `Type.Member` (a property, field or event), `Type.Method:return`,
// `Type.Method(parameter)`. Usage: mono CsharpSurface.exe Verify.dll Verify.xml

using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Reflection.Emit;
using System.Text;
using System.Xml;

internal static class CsharpSurface
{
    private const BindingFlags Declared = BindingFlags.DeclaredOnly | BindingFlags.Public |
        BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static;

    private static readonly Dictionary<short, OpCode> OneByte = new Dictionary<short, OpCode>();
    private static readonly Dictionary<short, OpCode> TwoByte = new Dictionary<short, OpCode>();
    private static Assembly assembly;
    private static readonly Dictionary<MethodBase, HashSet<Type>> Throws = new Dictionary<MethodBase, HashSet<Type>>();

    private static int Main(string[] args)
    {
        foreach (FieldInfo field in typeof(OpCodes).GetFields(BindingFlags.Public | BindingFlags.Static))
        {
            OpCode op = (OpCode)field.GetValue(null);
            if (op.Size == 1)
            {
                OneByte[op.Value] = op;
            }
            else
            {
                TwoByte[(short)(op.Value & 0xff)] = op;
            }
        }
        assembly = Assembly.LoadFrom(args[0]);
        XmlDocument xml = new XmlDocument();
        xml.Load(args[1]);
        Dictionary<string, XmlElement> docs = new Dictionary<string, XmlElement>();
        foreach (XmlElement member in xml.SelectNodes("/doc/members/member"))
        {
            docs[member.GetAttribute("name")] = member;
        }
        StringBuilder out_ = new StringBuilder();
        foreach (Type type in assembly.GetTypes().Where(Visible).OrderBy(t => t.FullName, StringComparer.Ordinal))
        {
            if (type.IsEnum)
            {
                continue;
            }
            foreach (MemberInfo member in type.GetMembers(Declared).Where(Visible)
                .OrderBy(m => m.ToString(), StringComparer.Ordinal))
            {
                string id = DocId(member);
                if (id == null)
                {
                    continue;
                }
                out_.AppendLine("MEMBER " + id);
                XmlElement doc;
                docs.TryGetValue(id, out doc);
                if (doc == null)
                {
                    out_.AppendLine("NODOC " + id);
                }
                string position = Name(type) + "." + member.Name;
                MethodBase method = member as MethodBase;
                PropertyInfo property = member as PropertyInfo;
                if (method != null)
                {
                    foreach (ParameterInfo parameter in method.GetParameters())
                    {
                        if (doc != null && doc.SelectSingleNode("param[@name='" + parameter.Name + "']") == null)
                        {
                            out_.AppendLine("NOPARAM " + id + " " + parameter.Name);
                        }
                        Nullability(out_, position + "(" + parameter.Name + ")", parameter.ParameterType,
                            parameter.GetCustomAttributesData(), method);
                    }
                    MethodInfo info = method as MethodInfo;
                    if (info != null && info.ReturnType != typeof(void))
                    {
                        Nullability(out_, position + ":return", info.ReturnType,
                            info.ReturnParameter.GetCustomAttributesData(), method);
                    }
                    Exceptions(out_, id, doc, new[] { method });
                }
                else if (property != null)
                {
                    Nullability(out_, position, property.PropertyType, property.GetCustomAttributesData(), null);
                    Exceptions(out_, id, doc, property.GetAccessors(false).Where(a => a.IsPublic || a.IsFamily));
                }
                else if (member is FieldInfo)
                {
                    FieldInfo field = (FieldInfo)member;
                    Nullability(out_, position, field.FieldType, field.GetCustomAttributesData(), null);
                }
                else if (member is EventInfo)
                {
                    EventInfo ev = (EventInfo)member;
                    Nullability(out_, position, ev.EventHandlerType, ev.GetCustomAttributesData(), null);
                }
            }
        }
        Console.Write(out_.ToString());
        return 0;
    }

    private static bool Visible(Type type)
    {
        return type.IsPublic || (type.IsNestedPublic && Visible(type.DeclaringType));
    }

    private static bool Visible(MemberInfo member)
    {
        MethodBase method = member as MethodBase;
        if (method != null)
        {
            return (method.IsPublic || method.IsFamily || method.IsFamilyOrAssembly) && !method.IsSpecialName
                || method is ConstructorInfo && (method.IsPublic || method.IsFamily || method.IsFamilyOrAssembly);
        }
        PropertyInfo property = member as PropertyInfo;
        if (property != null)
        {
            return property.GetAccessors(false).Any(a => a.IsPublic || a.IsFamily || a.IsFamilyOrAssembly);
        }
        FieldInfo field = member as FieldInfo;
        if (field != null)
        {
            return field.IsPublic || field.IsFamily || field.IsFamilyOrAssembly;
        }
        EventInfo ev = member as EventInfo;
        if (ev != null)
        {
            MethodInfo add = ev.GetAddMethod(true);
            return add != null && (add.IsPublic || add.IsFamily);
        }
        return false;
    }

    private static string Name(Type type)
    {
        return type.FullName.Replace('+', '.');
    }

    /// <summary>The XML documentation id of a member (ECMA-334 annex D), or null for a nested type.</summary>
    private static string DocId(MemberInfo member)
    {
        string owner = Name(member.DeclaringType);
        MethodBase method = member as MethodBase;
        if (method != null)
        {
            string name = method is ConstructorInfo ? (method.IsStatic ? "#cctor" : "#ctor") : method.Name;
            if (method.IsGenericMethodDefinition)
            {
                name += "``" + method.GetGenericArguments().Length;
            }
            ParameterInfo[] parameters = method.GetParameters();
            string list = parameters.Length == 0 ? "" :
                "(" + string.Join(",", parameters.Select(p => TypeId(p.ParameterType))) + ")";
            string id = "M:" + owner + "." + name + list;
            if (method.Name == "op_Implicit" || method.Name == "op_Explicit")
            {
                id += "~" + TypeId(((MethodInfo)method).ReturnType);
            }
            return id;
        }
        if (member is PropertyInfo)
        {
            ParameterInfo[] index = ((PropertyInfo)member).GetIndexParameters();
            string list = index.Length == 0 ? "" :
                "(" + string.Join(",", index.Select(p => TypeId(p.ParameterType))) + ")";
            return "P:" + owner + "." + member.Name + list;
        }
        if (member is FieldInfo)
        {
            return "F:" + owner + "." + member.Name;
        }
        if (member is EventInfo)
        {
            return "E:" + owner + "." + member.Name;
        }
        return null;
    }

    private static string TypeId(Type type)
    {
        if (type.IsByRef)
        {
            return TypeId(type.GetElementType()) + "@";
        }
        if (type.IsArray)
        {
            return TypeId(type.GetElementType()) + "[]";
        }
        if (type.IsGenericParameter)
        {
            return (type.DeclaringMethod != null ? "``" : "`") + type.GenericParameterPosition;
        }
        if (type.IsGenericType)
        {
            Type definition = type.GetGenericTypeDefinition();
            string name = definition.FullName;
            name = name.Substring(0, name.IndexOf('`'));
            return name.Replace('+', '.') + "{" + string.Join(",", type.GetGenericArguments().Select(TypeId)) + "}";
        }
        return Name(type);
    }

    /// <summary>
    /// Prints the nullability Roslyn reads for a position of reference type: the first byte of
    /// its [Nullable], else the [NullableContext] of its method, else of its type and the types
    /// around it; 0 (oblivious) when none says. Then, when its type has nested positions of
    /// reference type, what Roslyn reads for each of those (see <see cref="Slots"/>).
    /// </summary>
    private static void Nullability(StringBuilder out_, string position, Type type,
        IList<CustomAttributeData> attributes, MethodBase method)
    {
        Type bare = type.IsByRef ? type.GetElementType() : type;
        byte[] explicit_ = Bytes(attributes, "NullableAttribute");
        int flag = explicit_ == null ? -1 : explicit_[0];
        if (flag < 0 && method != null)
        {
            flag = Flag(method.GetCustomAttributesData(), "NullableContextAttribute");
        }
        for (Type owner = method != null ? method.DeclaringType : null; flag < 0 && owner != null; owner = owner.DeclaringType)
        {
            flag = Flag(owner.GetCustomAttributesData(), "NullableContextAttribute");
        }
        if (flag < 0 && method == null)
        {
            // A property, field or event: its declaring type's context, and the enclosing ones.
            string typeName = position.Substring(0, position.LastIndexOf('.'));
            for (Type owner = FindType(typeName); flag < 0 && owner != null; owner = owner.DeclaringType)
            {
                flag = Flag(owner.GetCustomAttributesData(), "NullableContextAttribute");
            }
        }
        List<bool> slots = new List<bool>();
        Slots(bare, slots);
        if (slots.Count == 0)
        {
            return; // a value type without type arguments of reference type
        }
        // One byte, or the context: every position; a byte[]: one byte per slot, else Roslyn
        // ignores the attribute (every position oblivious).
        Func<int, int> at = i => explicit_ == null ? Math.Max(flag, 0)
            : explicit_.Length == 1 ? explicit_[0]
            : explicit_.Length == slots.Count ? explicit_[i] : 0;
        if (slots[0])
        {
            out_.AppendLine("NULLABLE " + position + " " + at(0));
        }
        // (At the top, a generic value type's slot is not a reference type: nothing is lost.)
        List<string> nested = new List<string>();
        for (int i = 1; i < slots.Count; i++)
        {
            if (slots[i])
            {
                nested.Add(at(i).ToString());
            }
        }
        if (nested.Count > 0)
        {
            out_.AppendLine("NESTED " + position + " " + string.Join(",", nested));
        }
    }

    /// <summary>
    /// The positions of <paramref name="type"/> that take a byte of a [Nullable] byte[], in
    /// Roslyn's order (its docs/features/nullable-metadata.md): true for a reference type (then
    /// its type arguments), an array (then its element) or a type parameter; false for a
    /// generic value type (then its type arguments); a non-generic value type takes none, and
    /// <c>Nullable&lt;T&gt;</c> only those of T.
    /// </summary>
    private static void Slots(Type type, List<bool> slots)
    {
        if (type.IsByRef)
        {
            Slots(type.GetElementType(), slots);
        }
        else if (type.IsArray)
        {
            slots.Add(true);
            Slots(type.GetElementType(), slots);
        }
        else if (type.IsGenericParameter)
        {
            slots.Add(true);
        }
        else if (type.IsValueType)
        {
            if (!type.IsGenericType)
            {
                return;
            }
            if (type.GetGenericTypeDefinition() != typeof(Nullable<>))
            {
                slots.Add(false);
            }
            foreach (Type argument in type.GetGenericArguments())
            {
                Slots(argument, slots);
            }
        }
        else
        {
            slots.Add(true);
            foreach (Type argument in type.IsGenericType ? type.GetGenericArguments() : Type.EmptyTypes)
            {
                Slots(argument, slots);
            }
        }
    }

    /// <summary>The bytes of the named attribute (a byte or a byte[] argument), or null.</summary>
    private static byte[] Bytes(IList<CustomAttributeData> attributes, string name)
    {
        foreach (CustomAttributeData data in attributes)
        {
            if (data.AttributeType.FullName != "System.Runtime.CompilerServices." + name)
            {
                continue;
            }
            object value = data.ConstructorArguments[0].Value;
            if (value is byte)
            {
                return new[] { (byte)value };
            }
            IList<CustomAttributeTypedArgument> bytes = value as IList<CustomAttributeTypedArgument>;
            if (bytes != null && bytes.Count > 0)
            {
                return bytes.Select(b => (byte)b.Value).ToArray();
            }
        }
        return null;
    }

    private static Type FindType(string name)
    {
        return assembly.GetTypes().FirstOrDefault(t => Name(t) == name);
    }

    /// <summary>The first byte of the named attribute (a byte or a byte[] argument), or -1.</summary>
    private static int Flag(IList<CustomAttributeData> attributes, string name)
    {
        foreach (CustomAttributeData data in attributes)
        {
            if (data.AttributeType.FullName != "System.Runtime.CompilerServices." + name)
            {
                continue;
            }
            object value = data.ConstructorArguments[0].Value;
            if (value is byte)
            {
                return (byte)value;
            }
            IList<CustomAttributeTypedArgument> bytes = value as IList<CustomAttributeTypedArgument>;
            if (bytes != null && bytes.Count > 0)
            {
                return (byte)bytes[0].Value;
            }
        }
        return -1;
    }

    /// <summary>Prints the thrown exceptions of <paramref name="methods"/> that the doc does not name.</summary>
    private static void Exceptions(StringBuilder out_, string id, XmlElement doc, IEnumerable<MethodBase> methods)
    {
        HashSet<Type> thrown = new HashSet<Type>();
        foreach (MethodBase method in methods)
        {
            thrown.UnionWith(Thrown(method, new HashSet<MethodBase>()));
        }
        List<Type> documented = new List<Type>();
        if (doc != null)
        {
            foreach (XmlElement exception in doc.SelectNodes("exception"))
            {
                string cref = exception.GetAttribute("cref");
                string name = cref.StartsWith("T:") ? cref.Substring(2) : cref;
                Type type = assembly.GetType(name) ?? Type.GetType(name) ?? typeof(Exception).Assembly.GetType(name);
                if (type != null)
                {
                    documented.Add(type);
                }
            }
        }
        foreach (Type type in thrown.OrderBy(t => t.FullName, StringComparer.Ordinal))
        {
            if (!documented.Any(d => d.IsAssignableFrom(type)))
            {
                out_.AppendLine("NOEXCEPTION " + id + " " + type.FullName);
            }
        }
    }

    /// <summary>
    /// The exceptions checked here that a method throws itself or through the methods of this
    /// assembly it calls: ArgumentException and its subclasses it constructs, and VerifyException
    /// and its subclasses (constructed, or made by VerifyException.FromLastError and
    /// VerifyRefusedException.Of). Calls through delegates (a task's body) are not followed:
    /// what a task throws is its own.
    /// </summary>
    private static HashSet<Type> Thrown(MethodBase method, HashSet<MethodBase> seen)
    {
        HashSet<Type> cached;
        if (Throws.TryGetValue(method, out cached))
        {
            return cached;
        }
        HashSet<Type> result = new HashSet<Type>();
        if (!seen.Add(method))
        {
            return result;
        }
        Type verifyException = assembly.GetType("Verify.VerifyException");
        MethodBody body = method.GetMethodBody();
        byte[] il = body == null ? new byte[0] : body.GetILAsByteArray();
        int at = 0;
        bool passesArgument = false;
        int firstArgument = method.IsStatic ? 0 : 1;
        while (at < il.Length)
        {
            OpCode op;
            if (il[at] == 0xfe)
            {
                op = TwoByte[il[at + 1]];
                at += 2;
            }
            else
            {
                op = OneByte[il[at]];
                at += 1;
            }
            int operand = Size(op, il, at);
            int loaded = op == OpCodes.Ldarg_0 ? 0 : op == OpCodes.Ldarg_1 ? 1 : op == OpCodes.Ldarg_2 ? 2
                : op == OpCodes.Ldarg_3 ? 3 : op == OpCodes.Ldarg_S || op == OpCodes.Ldarga_S ? il[at]
                : op == OpCodes.Ldarg || op == OpCodes.Ldarga ? BitConverter.ToUInt16(il, at) : -1;
            if (loaded >= firstArgument)
            {
                passesArgument = true;
            }
            if (op == OpCodes.Call || op == OpCodes.Callvirt || op == OpCodes.Newobj)
            {
                int token = BitConverter.ToInt32(il, at);
                MethodBase callee = null;
                try
                {
                    callee = method.Module.ResolveMethod(token,
                        method.DeclaringType.IsGenericType ? method.DeclaringType.GetGenericArguments() : null,
                        method.IsGenericMethod ? method.GetGenericArguments() : null);
                }
                catch (ArgumentException)
                {
                }
                if (callee != null)
                {
                    Type owner = callee.DeclaringType;
                    if (op == OpCodes.Newobj && (typeof(ArgumentException).IsAssignableFrom(owner)
                        || verifyException.IsAssignableFrom(owner)))
                    {
                        result.Add(owner);
                    }
                    else if (callee.Name == "FromLastError" && owner == verifyException)
                    {
                        result.Add(verifyException);
                    }
                    else if (callee.Name == "Of" && owner.Name == "VerifyRefusedException")
                    {
                        result.Add(owner);
                    }
                    else if (owner != null && owner.Assembly == assembly)
                    {
                        MethodBase target = callee.IsGenericMethod && !callee.IsGenericMethodDefinition
                            ? ((MethodInfo)callee).GetGenericMethodDefinition() : callee;
                        foreach (Type type in Thrown(target, seen))
                        {
                            // A callee's argument checks are the caller's only for the caller's
                            // own arguments: those it passes (loaded since the previous call).
                            if (passesArgument || !typeof(ArgumentException).IsAssignableFrom(type))
                            {
                                result.Add(type);
                            }
                        }
                    }
                }
                passesArgument = false;
            }
            at += operand;
        }
        seen.Remove(method);
        Throws[method] = result;
        return result;
    }

    private static int Size(OpCode op, byte[] il, int at)
    {
        switch (op.OperandType)
        {
            case OperandType.InlineNone:
                return 0;
            case OperandType.ShortInlineBrTarget:
            case OperandType.ShortInlineI:
            case OperandType.ShortInlineVar:
                return 1;
            case OperandType.InlineVar:
                return 2;
            case OperandType.InlineI8:
            case OperandType.InlineR:
                return 8;
            case OperandType.InlineSwitch:
                return 4 + 4 * BitConverter.ToInt32(il, at);
            default:
                return 4;
        }
    }
}
