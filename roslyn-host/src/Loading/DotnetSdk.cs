using System.Runtime.InteropServices;
using CodeAgent.RoslynHost.Protocol;

namespace CodeAgent.RoslynHost.Loading;

/// <summary>Finds reference assemblies in the installed SDK (packs/) and the NuGet packages folder.</summary>
public static class DotnetSdk
{
    public static string? Root { get; } = FindRoot();

    public static string NuGetPackagesFolder { get; } =
        Environment.GetEnvironmentVariable("NUGET_PACKAGES") is { Length: > 0 } p
            ? p
            : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".nuget", "packages");

    private static string? FindRoot()
    {
        var env = Environment.GetEnvironmentVariable("DOTNET_ROOT");
        if (!string.IsNullOrEmpty(env) && Directory.Exists(Path.Combine(env, "packs"))) return env;
        // <root>/shared/Microsoft.NETCore.App/<version>/
        var runtimeDir = RuntimeEnvironment.GetRuntimeDirectory().TrimEnd('/', '\\');
        var root = Directory.GetParent(runtimeDir)?.Parent?.Parent?.FullName;
        return root is not null && Directory.Exists(Path.Combine(root, "packs")) ? root : null;
    }

    public sealed record RefPack(string Directory, string Description, IReadOnlyList<string> Assemblies);

    /// <summary>
    /// Best reference-assembly folder of a targeting pack for a target framework: the exact TFM folder at the
    /// highest pack version, else the newest `netX.Y` folder available (with a warning saying so).
    /// </summary>
    public static RefPack? FindRefPack(string packName, TargetFramework tfm, List<LoadWarning> warnings, string projectId)
    {
        var candidates = new List<(Version packVersion, Version tfmVersion, string folder, string dir)>();
        void Scan(string? packRoot)
        {
            if (packRoot is null || !System.IO.Directory.Exists(packRoot)) return;
            foreach (var verDir in System.IO.Directory.EnumerateDirectories(packRoot))
            {
                if (!Version.TryParse(StripPrerelease(Path.GetFileName(verDir)), out var pv)) continue;
                var refDir = Path.Combine(verDir, "ref");
                if (!System.IO.Directory.Exists(refDir)) continue;
                foreach (var tfmDir in System.IO.Directory.EnumerateDirectories(refDir))
                {
                    var folder = Path.GetFileName(tfmDir);
                    var parsed = TargetFramework.Parse(folder);
                    if (parsed.Family != TargetFrameworkFamily.NetCore) continue;
                    candidates.Add((pv, parsed.Version, folder, tfmDir));
                }
            }
        }
        Scan(Root is null ? null : Path.Combine(Root, "packs", packName));
        Scan(Path.Combine(NuGetPackagesFolder, packName.ToLowerInvariant()));
        if (candidates.Count == 0) return null;
        var exact = candidates.Where(c => string.Equals(c.folder, tfm.Folder, StringComparison.OrdinalIgnoreCase))
            .OrderByDescending(c => c.packVersion).FirstOrDefault();
        var chosen = exact.dir is not null
            ? exact
            : candidates.OrderByDescending(c => c.tfmVersion).ThenByDescending(c => c.packVersion).First();
        if (exact.dir is null)
        {
            warnings.Add(new LoadWarning("reference_fallback",
                $"{packName} reference assemblies for {tfm.Moniker} are not installed; using {chosen.folder} ({chosen.packVersion}) instead", projectId));
        }
        var dlls = System.IO.Directory.EnumerateFiles(chosen.dir, "*.dll").OrderBy(f => f, StringComparer.Ordinal).ToList();
        return new RefPack(chosen.dir, $"{packName}/{chosen.packVersion}/{chosen.folder}", dlls);
    }

    private static string StripPrerelease(string v)
    {
        var dash = v.IndexOf('-');
        return dash < 0 ? v : v[..dash];
    }
}

public enum TargetFrameworkFamily { NetCore, NetStandard, NetFramework, Unknown }

/// <summary>A parsed target framework moniker (net8.0, net8.0-windows, netstandard2.0, net48).</summary>
public sealed record TargetFramework(string Moniker, string Folder, TargetFrameworkFamily Family, Version Version, string? Platform)
{
    public static TargetFramework Parse(string moniker)
    {
        var m = moniker.Trim().ToLowerInvariant();
        string? platform = null;
        var dash = m.IndexOf('-');
        var baseTfm = m;
        if (dash > 0)
        {
            platform = m[(dash + 1)..];
            baseTfm = m[..dash];
        }
        if (baseTfm.StartsWith("netstandard", StringComparison.Ordinal) && Version.TryParse(baseTfm["netstandard".Length..], out var sv))
            return new(moniker, baseTfm, TargetFrameworkFamily.NetStandard, sv, platform);
        if (baseTfm.StartsWith("netcoreapp", StringComparison.Ordinal) && Version.TryParse(baseTfm["netcoreapp".Length..], out var cv))
            return new(moniker, baseTfm, TargetFrameworkFamily.NetCore, cv, platform);
        if (baseTfm.StartsWith("net", StringComparison.Ordinal))
        {
            var rest = baseTfm[3..];
            if (rest.Contains('.') && Version.TryParse(rest, out var nv)) return new(moniker, baseTfm, TargetFrameworkFamily.NetCore, nv, platform);
            if (rest.Length >= 2 && rest.All(char.IsDigit))
            {
                // net48 → 4.8, net472 → 4.7.2
                var v = new Version(rest[0] - '0', rest[1] - '0', rest.Length > 2 ? rest[2] - '0' : 0);
                return new(moniker, baseTfm, TargetFrameworkFamily.NetFramework, v, platform);
            }
        }
        return new(moniker, baseTfm, TargetFrameworkFamily.Unknown, new Version(0, 0), platform);
    }

    /// <summary>The symbols the SDK defines for this framework (NET, NET8_0, NET8_0_OR_GREATER, NETCOREAPP…).</summary>
    public IEnumerable<string> PreprocessorSymbols()
    {
        switch (Family)
        {
            case TargetFrameworkFamily.NetCore when Version.Major >= 5:
                yield return "NET";
                yield return "NETCOREAPP";
                yield return $"NET{Version.Major}_{Version.Minor}";
                for (var major = 5; major <= Version.Major; major++) yield return $"NET{major}_0_OR_GREATER";
                foreach (var v in new[] { "1_0", "1_1", "2_0", "2_1", "2_2", "3_0", "3_1" }) yield return $"NETCOREAPP{v}_OR_GREATER";
                break;
            case TargetFrameworkFamily.NetCore:
                yield return "NETCOREAPP";
                yield return $"NETCOREAPP{Version.Major}_{Version.Minor}";
                foreach (var v in new[] { (1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (3, 0), (3, 1) })
                    if (new Version(v.Item1, v.Item2) <= Version) yield return $"NETCOREAPP{v.Item1}_{v.Item2}_OR_GREATER";
                break;
            case TargetFrameworkFamily.NetStandard:
                yield return "NETSTANDARD";
                yield return $"NETSTANDARD{Version.Major}_{Version.Minor}";
                foreach (var v in new[] { (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (2, 0), (2, 1) })
                    if (new Version(v.Item1, v.Item2) <= Version) yield return $"NETSTANDARD{v.Item1}_{v.Item2}_OR_GREATER";
                break;
            case TargetFrameworkFamily.NetFramework:
                yield return "NETFRAMEWORK";
                yield return $"NET{Folder[3..].ToUpperInvariant()}";
                break;
        }
        if (Platform is { Length: > 0 })
        {
            var name = new string(Platform.TakeWhile(char.IsLetter).ToArray()).ToUpperInvariant();
            if (name.Length > 0) yield return name;
        }
    }
}
