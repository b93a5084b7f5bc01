using System.Text;
using System.Text.RegularExpressions;

namespace CodeAgent.RoslynHost.Loading;

/// <summary>MSBuild-style item globs (`**`, `*`, `?`) matched against project-relative POSIX paths.</summary>
public sealed class Glob
{
    private readonly Regex _regex;

    public string Pattern { get; }

    public Glob(string pattern)
    {
        Pattern = Normalize(pattern);
        _regex = new Regex("^" + ToRegex(Pattern) + "$", RegexOptions.CultureInvariant | RegexOptions.Compiled);
    }

    public bool IsMatch(string relativePath) => _regex.IsMatch(relativePath);

    public static bool HasWildcard(string pattern) => pattern.IndexOfAny(['*', '?']) >= 0;

    public static string Normalize(string pattern)
    {
        var p = pattern.Trim().Replace('\\', '/');
        while (p.StartsWith("./", StringComparison.Ordinal)) p = p[2..];
        return p;
    }

    private static string ToRegex(string pattern)
    {
        var sb = new StringBuilder();
        for (var i = 0; i < pattern.Length; i++)
        {
            var c = pattern[i];
            if (c == '*' && i + 1 < pattern.Length && pattern[i + 1] == '*')
            {
                // `**/` matches zero or more directories; a trailing `**` matches everything below.
                if (i + 2 < pattern.Length && pattern[i + 2] == '/')
                {
                    sb.Append("(?:.*/)?");
                    i += 2;
                }
                else
                {
                    sb.Append(".*");
                    i += 1;
                }
            }
            else if (c == '*') sb.Append("[^/]*");
            else if (c == '?') sb.Append("[^/]");
            else sb.Append(Regex.Escape(c.ToString()));
        }
        return sb.ToString();
    }
}
