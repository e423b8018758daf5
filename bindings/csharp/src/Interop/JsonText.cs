using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Globalization;
using System.Text;

namespace Verify
{
    /// <summary>Reads the library's JSON text (valid, compact) of an object into name to text.</summary>
    internal static class JsonText
    {
        /// <summary>
        /// The members of the object <paramref name="json"/>: strings unescaped, numbers and
        /// booleans in JSON notation; null, objects and arrays left out. Null when it is not an object.
        /// </summary>
        internal static IReadOnlyDictionary<string, string> StringMap(string json)
        {
            Dictionary<string, string> map = new Dictionary<string, string>(StringComparer.Ordinal);
            int at = 0;
            Space(json, ref at);
            if (at >= json.Length || json[at] != '{')
            {
                return null;
            }
            at++;
            Space(json, ref at);
            if (at < json.Length && json[at] == '}')
            {
                return new ReadOnlyDictionary<string, string>(map);
            }
            while (at < json.Length)
            {
                Space(json, ref at);
                string key = String(json, ref at);
                Space(json, ref at);
                if (key == null || at >= json.Length || json[at] != ':')
                {
                    return null;
                }
                at++;
                Space(json, ref at);
                int start = at;
                if (at < json.Length && json[at] == '"')
                {
                    string value = String(json, ref at);
                    if (value == null)
                    {
                        return null;
                    }
                    map[key] = value;
                }
                else
                {
                    if (!Skip(json, ref at, 0))
                    {
                        return null;
                    }
                    string raw = json.Substring(start, at - start).Trim();
                    if (raw.Length > 0 && raw != "null" && raw[0] != '{' && raw[0] != '[')
                    {
                        map[key] = raw;
                    }
                }
                Space(json, ref at);
                if (at >= json.Length)
                {
                    return null;
                }
                char next = json[at++];
                if (next == '}')
                {
                    return new ReadOnlyDictionary<string, string>(map);
                }
                if (next != ',')
                {
                    return null;
                }
            }
            return null;
        }

        private static void Space(string json, ref int at)
        {
            while (at < json.Length && (json[at] == ' ' || json[at] == '\t' || json[at] == '\n' || json[at] == '\r'))
            {
                at++;
            }
        }

        /// <summary>The string at <paramref name="at"/> (a '"'), unescaped; null when malformed.</summary>
        private static string String(string json, ref int at)
        {
            if (at >= json.Length || json[at] != '"')
            {
                return null;
            }
            at++;
            StringBuilder text = new StringBuilder();
            while (at < json.Length)
            {
                char c = json[at++];
                if (c == '"')
                {
                    return text.ToString();
                }
                if (c != '\\')
                {
                    text.Append(c);
                    continue;
                }
                if (at >= json.Length)
                {
                    return null;
                }
                char e = json[at++];
                switch (e)
                {
                    case '"': text.Append('"'); break;
                    case '\\': text.Append('\\'); break;
                    case '/': text.Append('/'); break;
                    case 'b': text.Append('\b'); break;
                    case 'f': text.Append('\f'); break;
                    case 'n': text.Append('\n'); break;
                    case 'r': text.Append('\r'); break;
                    case 't': text.Append('\t'); break;
                    case 'u':
                        int unit;
                        if (at + 4 > json.Length || !int.TryParse(json.Substring(at, 4), NumberStyles.AllowHexSpecifier,
                            CultureInfo.InvariantCulture, out unit))
                        {
                            return null;
                        }
                        text.Append((char)unit);
                        at += 4;
                        break;
                    default:
                        return null;
                }
            }
            return null;
        }

        /// <summary>Skips the value at <paramref name="at"/>.</summary>
        private static bool Skip(string json, ref int at, int depth)
        {
            Space(json, ref at);
            if (at >= json.Length || depth > 64)
            {
                return false;
            }
            char c = json[at];
            if (c == '"')
            {
                return String(json, ref at) != null;
            }
            if (c == '{' || c == '[')
            {
                char close = c == '{' ? '}' : ']';
                at++;
                Space(json, ref at);
                if (at < json.Length && json[at] == close)
                {
                    at++;
                    return true;
                }
                while (at < json.Length)
                {
                    if (c == '{')
                    {
                        Space(json, ref at);
                        if (String(json, ref at) == null)
                        {
                            return false;
                        }
                        Space(json, ref at);
                        if (at >= json.Length || json[at++] != ':')
                        {
                            return false;
                        }
                    }
                    if (!Skip(json, ref at, depth + 1))
                    {
                        return false;
                    }
                    Space(json, ref at);
                    if (at >= json.Length)
                    {
                        return false;
                    }
                    char next = json[at++];
                    if (next == close)
                    {
                        return true;
                    }
                    if (next != ',')
                    {
                        return false;
                    }
                }
                return false;
            }
            while (at < json.Length && json[at] != ',' && json[at] != '}' && json[at] != ']')
            {
                at++;
            }
            return true;
        }
    }
}
