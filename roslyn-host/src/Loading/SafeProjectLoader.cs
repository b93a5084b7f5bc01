using System.Collections.Concurrent;
using System.Text.Json;
using System.Xml;
using CodeAgent.RoslynHost.Analysis;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;
using Microsoft.CodeAnalysis;
// Alias: Microsoft.CodeAnalysis.Workspaces (used by tools/GroundTruth, which compiles these sources) has its own ProjectInfo.
using ProjectInfo = CodeAgent.RoslynHost.Protocol.ProjectInfo;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Text;

namespace CodeAgent.RoslynHost.Loading;

/// <summary>
/// Safe mode: builds a CSharpCompilation per project from its .cs files (SDK default globbing plus
/// Compile items read as XML), the SDK's reference assemblies, packages listed in an existing
/// obj/project.assets.json and project references as compilation references. Nothing from the
/// repository is executed: no MSBuild evaluation, no restore, no analyzers or source generators of the repository (the
/// only generator run is the installed SDK's own Razor generator, over projects with Razor files: RazorGenerator).
/// </summary>
public sealed class SafeProjectLoader(LoadProjectParams request, CancellationToken cancellationToken)
{
    private static readonly ConcurrentDictionary<string, MetadataReference> MetadataCache = new(StringComparer.Ordinal);

    /// <summary>
    /// Last load of each project (by full path) with the fingerprint of everything it was built from. A later
    /// loadProject that finds the same inputs (project files, source files by size and write time, the same
    /// referenced LoadedProject objects, the same request options) gets the same LoadedProject back, so the
    /// workspace keeps that project's analyses: the engine loads every project of a solution in turn and each
    /// load used to rebuild (and re-analyse) all of its references.
    /// </summary>
    private static readonly ConcurrentDictionary<string, (string Fingerprint, List<LoadedProject> References, LoadedProject Project)> LoadCache = new(StringComparer.Ordinal);

    /// <summary>Drops reusable loads (unloadProject): the next load builds fresh compilations.</summary>
    public static void ForgetLoads(string? projectId)
    {
        if (projectId is null) LoadCache.Clear();
        else foreach (var key in LoadCache.Where(e => e.Value.Project.ProjectId == projectId).Select(e => e.Key).ToList()) LoadCache.TryRemove(key, out _);
    }

    private readonly string _repoRoot = Path.GetFullPath(request.RepoRoot);
    private readonly string _configuration = string.IsNullOrEmpty(request.Configuration) ? "Release" : request.Configuration;
    private readonly Dictionary<string, LoadedProject?> _memo = new(StringComparer.Ordinal);
    private readonly HashSet<string> _visiting = new(StringComparer.Ordinal);
    private readonly List<LoadedProject> _order = [];

    public List<LoadWarning> Warnings { get; } = [];

    public IReadOnlyList<LoadedProject> Load()
    {
        var root = Path.GetFullPath(Path.IsPathRooted(request.ProjectPath) ? request.ProjectPath : Path.Combine(_repoRoot, request.ProjectPath));
        var loaded = LoadOne(root, isRoot: true);
        if (loaded is null) throw new HostException(ErrorCodes.ProjectLoadFailed, $"cannot load {RepoRelative(root)}");
        // Root first, then its references in load order.
        return [loaded, .. _order.Where(p => !ReferenceEquals(p, loaded))];
    }

    private string RepoRelative(string full) => Path.GetRelativePath(_repoRoot, full).Replace('\\', '/');

    private LoadedProject? LoadOne(string fullPath, bool isRoot)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (_memo.TryGetValue(fullPath, out var done)) return done;
        var projectId = RepoRelative(fullPath);
        if (!_visiting.Add(fullPath))
        {
            Warnings.Add(new LoadWarning("missing_reference", $"project reference cycle through {projectId}; reference ignored", projectId));
            return null;
        }
        try
        {
            var result = Build(fullPath, projectId);
            _memo[fullPath] = result;
            _order.Add(result);
            return result;
        }
        catch (Exception e) when (e is XmlException or IOException or UnauthorizedAccessException or ProjectBuildException)
        {
            var reason = e switch
            {
                XmlException x => $"malformed project XML: {x.Message}",
                FileNotFoundException or DirectoryNotFoundException => "project file not found",
                _ => e.Message,
            };
            _memo[fullPath] = null;
            if (isRoot)
            {
                throw new HostException(ErrorCodes.ProjectLoadFailed, $"{projectId}: {reason}", new { projectId, reason });
            }
            Warnings.Add(new LoadWarning(ErrorCodes.ProjectLoadFailed, $"{projectId}: {reason}; referencing projects continue without it", projectId));
            return null;
        }
        finally
        {
            _visiting.Remove(fullPath);
        }
    }

    private sealed class ProjectBuildException(string message) : Exception(message);

    private LoadedProject Build(string fullPath, string projectId)
    {
        var project = ProjectFile.Read(fullPath, projectId, _configuration, _repoRoot);
        var warnings = new List<LoadWarning>(project.Warnings);

        // Project references first: their compilations become metadata references of this one.
        var references = new List<MetadataReference>();
        var referencedProjects = new List<LoadedProject>();
        var projectRefs = new List<string>();
        foreach (var item in project.ItemsOf("ProjectReference"))
        {
            foreach (var include in Split(item.Include))
            {
                var refPath = Path.GetFullPath(Path.Combine(project.DirectoryPath, include.Replace('\\', '/')));
                var refId = RepoRelative(refPath);
                projectRefs.Add(refId);
                if (!File.Exists(refPath))
                {
                    var w = new LoadWarning("missing_reference", $"referenced project {refId} does not exist; continuing without it", projectId);
                    warnings.Add(w);
                    Warnings.Add(w);
                    continue;
                }
                if (request.LoadReferences == false) continue;
                var loadedRef = LoadOne(refPath, isRoot: false);
                if (loadedRef is not null)
                {
                    references.Add(loadedRef.Compilation.ToMetadataReference());
                    referencedProjects.Add(loadedRef);
                }
            }
        }

        var own = System.Diagnostics.Stopwatch.StartNew();
        var files = SourceFiles.Collect(project);
        var razorFiles = SourceFiles.CollectRazor(project);
        var fingerprint = Fingerprint(project, [.. files, .. razorFiles], referencedProjects);
        if (LoadCache.TryGetValue(fullPath, out var reusable) && reusable.Fingerprint == fingerprint
            && reusable.References.Count == referencedProjects.Count && reusable.References.Zip(referencedProjects).All(x => ReferenceEquals(x.First, x.Second)))
        {
            foreach (var w in reusable.Project.Info.Warnings.Where(w => !Warnings.Contains(w))) Warnings.Add(w);
            Server.Log.Debug($"load {projectId}: unchanged, reused");
            return reusable.Project;
        }

        var tfmText = TargetFrameworkOf(project);
        var tfm = TargetFramework.Parse(tfmText);
        if (tfm.Family is TargetFrameworkFamily.NetFramework or TargetFrameworkFamily.Unknown)
        {
            warnings.Add(new LoadWarning("reference_fallback", $"{tfmText}: only .NET (Core) reference assemblies are used in safe mode", projectId));
        }

        var sdk = project.Sdk.Length > 0 ? project.Sdk : "Microsoft.NET.Sdk";
        var isWeb = sdk.StartsWith("Microsoft.NET.Sdk.Web", StringComparison.OrdinalIgnoreCase);
        // A Razor class library (Microsoft.NET.Sdk.Razor) or any project with Razor files compiles against ASP.NET Core:
        // the generator binds components, their parameters and directives through those assemblies.
        var needsAspNet = isWeb || sdk.StartsWith("Microsoft.NET.Sdk.Razor", StringComparison.OrdinalIgnoreCase) || razorFiles.Count > 0;
        var netCoreRef = DotnetSdk.FindRefPack("Microsoft.NETCore.App.Ref", tfm, warnings, projectId)
            ?? throw new ProjectBuildException("no Microsoft.NETCore.App.Ref reference assemblies found in the .NET SDK or the NuGet packages folder");
        var refPaths = new List<string>(netCoreRef.Assemblies);
        var refDescription = netCoreRef.Description;

        var frameworkRefs = project.ItemsOf("FrameworkReference").SelectMany(i => Split(i.Include)).ToHashSet(StringComparer.OrdinalIgnoreCase);
        var assets = ReadAssets(project, tfm, warnings, projectId, frameworkRefs);
        if (needsAspNet || frameworkRefs.Contains("Microsoft.AspNetCore.App"))
        {
            var asp = DotnetSdk.FindRefPack("Microsoft.AspNetCore.App.Ref", tfm, warnings, projectId);
            if (asp is null) warnings.Add(new LoadWarning("reference_fallback", "Microsoft.AspNetCore.App.Ref reference assemblies not found", projectId));
            else
            {
                refPaths.AddRange(asp.Assemblies);
                refDescription += ";" + asp.Description;
            }
        }
        refPaths.AddRange(assets);
        foreach (var path in refPaths.Distinct(StringComparer.Ordinal))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (SafeFile.IsInside(_repoRoot, path))
            {
                // An assembly inside the repository (a package folder the assets file points into) is read like any
                // repository file; it is metadata only, never loaded for execution.
                var image = SafeFile.Read(path, _repoRoot, SafeFile.AssemblyMaxBytes);
                if (!image.Ok)
                {
                    warnings.Add(new LoadWarning(ErrorCodes.FileRefused, $"{RepoRelative(path)} not read: {image.Reason}", projectId));
                    continue;
                }
                references.Add(MetadataReference.CreateFromImage(image.Bytes!, filePath: path));
                continue;
            }
            references.Add(CachedReference(path));
        }

        var symbols = PreprocessorSymbols(project, tfm);
        var parseOptions = new CSharpParseOptions(
            ParseLanguageVersion(project.Property("LangVersion")),
            DocumentationMode.None,
            SourceCodeKind.Regular,
            symbols);

        var documents = new ConcurrentBag<LoadedDocument>();
        var refused = new ConcurrentBag<LoadWarning>();
        var maxFileBytes = request.MaxFileBytes is > 0 ? request.MaxFileBytes.Value : SafeFile.DefaultSourceMaxBytes;
        Parallel.ForEach(files, new ParallelOptions { CancellationToken = cancellationToken, MaxDegreeOfParallelism = Math.Max(1, Environment.ProcessorCount) }, file =>
        {
            // A .cs link to /dev/zero, a FIFO, a file over the cap or outside the repository: refused, never waited on.
            var read = SafeFile.Read(file, _repoRoot, maxFileBytes);
            if (!read.Ok)
            {
                if (read.Refusal != SafeFileRefusal.Missing)
                    refused.Add(new LoadWarning(ErrorCodes.FileRefused, $"{RepoRelative(file)} not read: {read.Reason}", RepoRelative(file)));
                return;
            }
            SourceText text;
            using (var stream = new MemoryStream(read.Bytes!, writable: false))
            {
                text = SourceText.From(stream, throwIfBinaryDetected: false, checksumAlgorithm: SourceHashAlgorithm.Sha256);
            }
            var tree = CSharpSyntaxTree.ParseText(text, parseOptions, file, cancellationToken);
            documents.Add(new LoadedDocument(file, RepoRelative(file), tree, projectId));
        });
        warnings.AddRange(refused.OrderBy(w => w.Path, StringComparer.Ordinal));
        var ordered = documents.OrderBy(d => d.RelativePath, StringComparer.Ordinal).ToList();

        var trees = ordered.Select(d => d.Tree).ToList();
        var globalUsings = GlobalUsings.Build(project, isWeb, parseOptions);
        if (globalUsings is not null) trees.Add(globalUsings);

        var outputKind = (project.Property("OutputType") ?? "Library").ToLowerInvariant() switch
        {
            "exe" => OutputKind.ConsoleApplication,
            "winexe" => OutputKind.WindowsApplication,
            _ => OutputKind.DynamicallyLinkedLibrary,
        };
        var options = new CSharpCompilationOptions(
            outputKind,
            nullableContextOptions: ParseNullable(project.Property("Nullable")),
            allowUnsafe: string.Equals(project.Property("AllowUnsafeBlocks"), "true", StringComparison.OrdinalIgnoreCase),
            concurrentBuild: false);
        var assemblyName = project.Property("AssemblyName") ?? project.Name;
        var compilation = CSharpCompilation.Create(assemblyName, trees, references, options);
        var razor = RunRazor(ref compilation, project, razorFiles, parseOptions, maxFileBytes, projectId, warnings);
        ordered.AddRange(razor.Documents);

        var errors = compilation.GetParseDiagnostics(cancellationToken).Count(d => d.Severity == DiagnosticSeverity.Error);
        var sample = compilation.GetParseDiagnostics(cancellationToken)
            .Where(d => d.Severity == DiagnosticSeverity.Error).Take(20)
            .Select(d => DocumentAnalyzer.ToInfo(d, RepoRelative)).ToList();
        var pkgCount = project.ItemsOf("PackageReference").Count();
        if (pkgCount > 0 && assets.Count == 0)
        {
            warnings.Add(new LoadWarning("missing_reference",
                $"{pkgCount} PackageReference(s) but no restored obj/project.assets.json: package types stay unresolved (safe mode never restores)", projectId));
        }
        foreach (var w in warnings.Where(w => !Warnings.Contains(w))) Warnings.Add(w);

        var info = new ProjectInfo(
            projectId,
            project.Name,
            assemblyName,
            tfmText,
            sdk,
            refDescription,
            references.Count,
            pkgCount,
            ordered.Select(d => d.RelativePath).ToList(),
            projectRefs,
            symbols.ToList(),
            errors,
            sample,
            warnings,
            razor.Status);
        var result = new LoadedProject(projectId, fullPath, _repoRoot, compilation, ordered, info);
        LoadCache[fullPath] = (fingerprint, referencedProjects, result);
        Server.Log.Debug($"load {projectId}: built in {own.ElapsedMilliseconds} ms, {ordered.Count} documents, {references.Count} references");
        return result;
    }

    /// <summary>The target framework a project is compiled for: its TargetFramework, else the first of TargetFrameworks.</summary>
    private static string TargetFrameworkOf(ProjectFile project) =>
        project.Property("TargetFramework")
        ?? project.Property("TargetFrameworks")?.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).FirstOrDefault()
        ?? "net10.0";

    /// <summary>
    /// What the Razor generator's warm-up compiles against for a project with Razor files: the .NET and ASP.NET Core
    /// reference assemblies of its target framework — the very reference objects its load will use — and its language
    /// version. Null when either pack is missing. Reads the project file (through SafeFile) and nothing else.
    /// </summary>
    public static (IReadOnlyList<MetadataReference> References, CSharpParseOptions ParseOptions)? RazorFramework(string projectFullPath, string repoRoot)
    {
        var projectId = Path.GetRelativePath(repoRoot, projectFullPath).Replace('\\', '/');
        var project = ProjectFile.Read(projectFullPath, projectId, "Release", repoRoot);
        var tfm = TargetFramework.Parse(TargetFrameworkOf(project));
        var ignored = new List<LoadWarning>();
        var netCore = DotnetSdk.FindRefPack("Microsoft.NETCore.App.Ref", tfm, ignored, projectId);
        var aspNet = DotnetSdk.FindRefPack("Microsoft.AspNetCore.App.Ref", tfm, ignored, projectId);
        if (netCore is null || aspNet is null) return null;
        var references = netCore.Assemblies.Concat(aspNet.Assemblies).Distinct(StringComparer.Ordinal)
            .Where(p => !SafeFile.IsInside(repoRoot, p)).Select(CachedReference).ToList();
        return (references, new CSharpParseOptions(ParseLanguageVersion(project.Property("LangVersion")), DocumentationMode.None));
    }

    /// <summary>One reference object per assembly outside the repository, shared by every compilation of the process.</summary>
    private static MetadataReference CachedReference(string path) => MetadataCache.GetOrAdd(path, p => MetadataReference.CreateFromFile(p));

    private sealed record RazorLoad(List<LoadedDocument> Documents, RazorStatus? Status);

    /// <summary>
    /// Runs the SDK's Razor generator over the project's .razor/.cshtml files (read like sources: refused ones are
    /// warned and left out) and adds its trees to the compilation. Each Razor file becomes a document whose tree is its
    /// generated C#; a file the generator produced nothing for is listed as skipped. Without Razor files: no status.
    /// </summary>
    private RazorLoad RunRazor(ref CSharpCompilation compilation, ProjectFile project, List<string> razorFiles, CSharpParseOptions parseOptions,
        long maxFileBytes, string projectId, List<LoadWarning> warnings)
    {
        if (razorFiles.Count == 0) return new RazorLoad([], null);
        var sources = new List<RazorSource>();
        foreach (var file in razorFiles)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var read = SafeFile.Read(file, _repoRoot, maxFileBytes);
            if (!read.Ok)
            {
                if (read.Refusal != SafeFileRefusal.Missing)
                    warnings.Add(new LoadWarning(ErrorCodes.FileRefused, $"{RepoRelative(file)} not read: {read.Reason}", RepoRelative(file)));
                continue;
            }
            using var stream = new MemoryStream(read.Bytes!, writable: false);
            var text = SourceText.From(stream, throwIfBinaryDetected: false, checksumAlgorithm: SourceHashAlgorithm.Sha256);
            sources.Add(new RazorSource(file, Path.GetRelativePath(project.DirectoryPath, file).Replace('\\', '/'), text));
        }
        var watch = System.Diagnostics.Stopwatch.StartNew();
        var run = RazorGenerator.Run(compilation, project, sources, parseOptions, cancellationToken);
        Server.Log.Debug($"razor generator: {projectId}, {sources.Count} files, {watch.ElapsedMilliseconds} ms");
        if (!run.Ran)
        {
            warnings.Add(new LoadWarning("razor_generator", $"{run.Reason}: Razor files stay syntactic", projectId));
            return new RazorLoad([], new RazorStatus(false, run.Reason, [], []));
        }
        compilation = run.Compilation;
        var documents = run.Documents
            .GroupBy(g => g.FullPath, StringComparer.Ordinal)
            .Select(g => new LoadedDocument(g.Key, RepoRelative(g.Key), g.First().Tree, projectId, g.First().RazorText))
            .OrderBy(d => d.RelativePath, StringComparer.Ordinal).ToList();
        // The generator's diagnostics sit on the Razor file itself (an external-file location, not a syntax tree's).
        var errors = run.Errors.Select(d =>
        {
            var span = d.Location.GetLineSpan();
            var path = string.IsNullOrEmpty(span.Path) ? null : RepoRelative(Path.GetFullPath(span.Path));
            return new DiagnosticInfo("error", d.Id, d.GetMessage(System.Globalization.CultureInfo.InvariantCulture), path, path is null ? null : span.StartLinePosition.Line + 1);
        }).ToList();
        return new RazorLoad(documents, new RazorStatus(true, null, documents.Select(d => d.RelativePath).ToList(), errors));
    }

    /// <summary>A load's inputs as text: request options, project/props/assets files and sources (size + mtime), reference ids (objects compared separately).</summary>
    private string Fingerprint(ProjectFile project, List<string> files, List<LoadedProject> referencedProjects)
    {
        var sb = new System.Text.StringBuilder();
        sb.Append(_repoRoot).Append('|').Append(_configuration).Append('|').Append(request.LoadReferences).Append('|')
            .AppendJoin(';', request.PreprocessorSymbols ?? []).Append('\n');
        void Stat(string? path)
        {
            if (path is null) return;
            var info = new FileInfo(path);
            sb.Append(path).Append('|').Append(info.Exists ? info.Length : -1).Append('|').Append(info.Exists ? info.LastWriteTimeUtc.Ticks : 0).Append('\n');
        }
        Stat(project.FullPath);
        Stat(project.DirectoryBuildProps);
        Stat(Path.Combine(project.DirectoryPath, (project.Property("BaseIntermediateOutputPath") ?? "obj").Replace('\\', '/'), "project.assets.json"));
        foreach (var f in files) Stat(f);
        foreach (var r in referencedProjects) sb.Append("ref ").Append(r.ProjectId).Append('\n');
        return sb.ToString();
    }

    private static IEnumerable<string> Split(string? value) =>
        (value ?? "").Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);

    private IReadOnlyList<string> PreprocessorSymbols(ProjectFile project, TargetFramework tfm)
    {
        if (request.PreprocessorSymbols is { Count: > 0 } explicitSymbols) return explicitSymbols.Distinct().ToList();
        var list = new List<string>();
        var config = _configuration.ToUpperInvariant();
        list.Add(config == "DEBUG" ? "DEBUG" : config == "RELEASE" ? "RELEASE" : config);
        list.Add("TRACE");
        list.AddRange(tfm.PreprocessorSymbols());
        list.AddRange(Split(project.Property("DefineConstants")).Where(s => s.All(c => char.IsLetterOrDigit(c) || c == '_')));
        return list.Distinct(StringComparer.Ordinal).ToList();
    }

    private static LanguageVersion ParseLanguageVersion(string? text) =>
        text is not null && LanguageVersionFacts.TryParse(text, out var v) ? v : LanguageVersion.Latest;

    private static NullableContextOptions ParseNullable(string? text) => (text ?? "").ToLowerInvariant() switch
    {
        "enable" => NullableContextOptions.Enable,
        "warnings" => NullableContextOptions.Warnings,
        "annotations" => NullableContextOptions.Annotations,
        _ => NullableContextOptions.Disable,
    };

    /// <summary>Compile-time assemblies of restored packages, read from obj/project.assets.json when it exists.</summary>
    private List<string> ReadAssets(ProjectFile project, TargetFramework tfm, List<LoadWarning> warnings, string projectId, HashSet<string> frameworkRefs)
    {
        var result = new List<string>();
        var objDir = project.Property("BaseIntermediateOutputPath") ?? "obj";
        var assetsPath = Path.Combine(project.DirectoryPath, objDir.Replace('\\', '/'), "project.assets.json");
        var read = SafeFile.Read(assetsPath, _repoRoot, SafeFile.AssetsFileMaxBytes);
        if (!read.Ok)
        {
            if (read.Refusal != SafeFileRefusal.Missing)
                warnings.Add(new LoadWarning(ErrorCodes.FileRefused, $"{RepoRelative(assetsPath)} not read: {read.Reason}", projectId));
            return result;
        }
        try
        {
            using var doc = JsonDocument.Parse(read.Bytes);
            var root = doc.RootElement;
            var folders = new List<string>();
            if (root.TryGetProperty("packageFolders", out var pf) && pf.ValueKind == JsonValueKind.Object)
                folders.AddRange(pf.EnumerateObject().Select(p => p.Name));
            folders.Add(DotnetSdk.NuGetPackagesFolder);
            if (!root.TryGetProperty("targets", out var targets) || targets.ValueKind != JsonValueKind.Object) return result;
            JsonElement? target = null;
            foreach (var t in targets.EnumerateObject())
            {
                if (t.Name.Contains('/')) continue;
                if (target is null || string.Equals(t.Name, tfm.Moniker, StringComparison.OrdinalIgnoreCase)
                    || t.Name.StartsWith(tfm.Folder, StringComparison.OrdinalIgnoreCase)) target = t.Value;
            }
            if (target is null) return result;
            var libraries = root.TryGetProperty("libraries", out var libs) ? libs : default;
            var missing = 0;
            foreach (var lib in target.Value.EnumerateObject())
            {
                if (!lib.Value.TryGetProperty("type", out var type) || type.GetString() != "package") continue;
                if (!lib.Value.TryGetProperty("compile", out var compile)) continue;
                var libPath = libraries.ValueKind == JsonValueKind.Object && libraries.TryGetProperty(lib.Name, out var l) && l.TryGetProperty("path", out var p)
                    ? p.GetString() ?? lib.Name.ToLowerInvariant()
                    : lib.Name.ToLowerInvariant();
                foreach (var file in compile.EnumerateObject())
                {
                    if (file.Name.EndsWith("_._", StringComparison.Ordinal) || !file.Name.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)) continue;
                    var found = folders.Select(f => Path.Combine(f, libPath, file.Name)).FirstOrDefault(File.Exists);
                    if (found is null) missing++;
                    else result.Add(found);
                }
            }
            if (root.TryGetProperty("project", out var proj) && proj.TryGetProperty("frameworks", out var fws))
            {
                foreach (var fw in fws.EnumerateObject())
                    if (fw.Value.TryGetProperty("frameworkReferences", out var frs))
                        foreach (var fr in frs.EnumerateObject()) frameworkRefs.Add(fr.Name);
            }
            if (missing > 0)
                warnings.Add(new LoadWarning("missing_reference", $"{missing} package assemblies listed in project.assets.json are not in the NuGet packages folder", projectId));
        }
        catch (JsonException e)
        {
            warnings.Add(new LoadWarning("missing_reference", $"obj/project.assets.json unreadable: {e.Message}", projectId));
        }
        return result;
    }
}
