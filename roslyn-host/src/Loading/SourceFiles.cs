namespace CodeAgent.RoslynHost.Loading;

/// <summary>
/// The SDK's default Compile globbing without MSBuild: **/*.cs under the project directory, minus bin/, obj/,
/// hidden folders and folders of nested projects, minus Compile Remove / DefaultItemExcludes, plus explicit
/// Compile Include items (which may point outside the project directory).
/// </summary>
public static class SourceFiles
{
    public static List<string> Collect(ProjectFile project)
    {
        var dir = project.DirectoryPath;
        var removes = project.ItemsOf("Compile").Where(i => i.Remove is not null)
            .SelectMany(i => i.Remove!.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            .Concat((project.Property("DefaultItemExcludes") ?? "").Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            .Select(p => new Glob(Relativize(dir, p))).ToList();
        var result = new List<string>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var defaults = !IsFalse(project.Property("EnableDefaultItems")) && !IsFalse(project.Property("EnableDefaultCompileItems"));
        if (defaults)
        {
            var bin = Path.Combine(dir, (project.Property("BaseOutputPath") ?? "bin").TrimEnd('/', '\\'));
            var obj = Path.Combine(dir, (project.Property("BaseIntermediateOutputPath") ?? "obj").TrimEnd('/', '\\'));
            foreach (var file in Walk(dir, dir, Path.GetFullPath(bin), Path.GetFullPath(obj), "*.cs"))
            {
                if (seen.Add(file)) result.Add(file);
            }
        }
        foreach (var item in project.ItemsOf("Compile").Where(i => i.Include is not null))
        {
            foreach (var include in item.Include!.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            {
                foreach (var file in Expand(dir, include))
                    if (seen.Add(file)) result.Add(file);
            }
        }
        return result.Where(f => !removes.Any(g => g.IsMatch(Relative(dir, f)))).ToList();
    }

    private static bool IsFalse(string? v) => string.Equals(v, "false", StringComparison.OrdinalIgnoreCase);

    private static string Relative(string dir, string file) => Path.GetRelativePath(dir, file).Replace('\\', '/');

    private static string Relativize(string dir, string pattern)
    {
        var p = Glob.Normalize(pattern);
        return Path.IsPathRooted(p) && p.StartsWith(dir, StringComparison.Ordinal) ? Relative(dir, p) : p;
    }

    /// <summary>
    /// The Razor files the SDK compiles by default (Content items: **/*.razor and **/*.cshtml under the project directory,
    /// minus bin/, obj/, hidden folders and nested projects), for the Razor generator.
    /// </summary>
    public static List<string> CollectRazor(ProjectFile project)
    {
        var dir = project.DirectoryPath;
        if (IsFalse(project.Property("EnableDefaultItems")) || IsFalse(project.Property("EnableDefaultContentItems"))) return [];
        var bin = Path.GetFullPath(Path.Combine(dir, (project.Property("BaseOutputPath") ?? "bin").TrimEnd('/', '\\')));
        var obj = Path.GetFullPath(Path.Combine(dir, (project.Property("BaseIntermediateOutputPath") ?? "obj").TrimEnd('/', '\\')));
        return Walk(dir, dir, bin, obj, "*.razor").Concat(Walk(dir, dir, bin, obj, "*.cshtml")).Distinct(StringComparer.Ordinal).ToList();
    }

    private static IEnumerable<string> Walk(string projectDir, string dir, string bin, string obj, string pattern)
    {
        var stack = new Stack<string>();
        stack.Push(dir);
        while (stack.Count > 0)
        {
            var current = stack.Pop();
            IEnumerable<string> files, subdirs;
            try
            {
                files = Directory.EnumerateFiles(current, pattern).ToList();
                subdirs = Directory.EnumerateDirectories(current).ToList();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                continue;
            }
            foreach (var f in files.OrderBy(f => f, StringComparer.Ordinal)) yield return f;
            foreach (var sub in subdirs)
            {
                var name = Path.GetFileName(sub);
                if (name.StartsWith('.')) continue;
                if (string.Equals(sub, bin, StringComparison.Ordinal) || string.Equals(sub, obj, StringComparison.Ordinal)) continue;
                var info = new DirectoryInfo(sub);
                // Never follow links: they could lead outside the repository.
                if (info.LinkTarget is not null) continue;
                if (Directory.EnumerateFiles(sub, "*.*proj").Any()) continue;
                stack.Push(sub);
            }
        }
    }

    private static IEnumerable<string> Expand(string projectDir, string include)
    {
        var pattern = Glob.Normalize(include);
        if (!Glob.HasWildcard(pattern))
        {
            var full = Path.GetFullPath(Path.Combine(projectDir, pattern));
            if (File.Exists(full) && full.EndsWith(".cs", StringComparison.OrdinalIgnoreCase)) yield return full;
            yield break;
        }
        // Base directory = the wildcard-free prefix of the pattern.
        var segments = pattern.Split('/');
        var fixedCount = segments.TakeWhile(s => !Glob.HasWildcard(s)).Count();
        var baseDir = Path.GetFullPath(Path.Combine(projectDir, string.Join('/', segments.Take(fixedCount))));
        if (!Directory.Exists(baseDir)) yield break;
        var glob = new Glob(string.Join('/', segments.Skip(fixedCount)));
        foreach (var file in Directory.EnumerateFiles(baseDir, "*.cs", new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = FileAttributes.ReparsePoint }))
        {
            if (glob.IsMatch(Relative(baseDir, file))) yield return Path.GetFullPath(file);
        }
    }
}
