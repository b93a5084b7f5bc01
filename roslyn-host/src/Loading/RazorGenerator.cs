using System.Collections.Immutable;
using System.Reflection;
using System.Runtime.Loader;
using System.Text;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Text;

namespace CodeAgent.RoslynHost.Loading;

/// <summary>A .razor / .cshtml file of a project, read through SafeFile (its text is the generator's AdditionalFile).</summary>
public sealed record RazorSource(string FullPath, string ProjectRelativePath, SourceText Text);

/// <summary>One generated document: the Razor file it comes from and the C# the SDK's generator wrote for it.</summary>
public sealed record RazorGenerated(string FullPath, SyntaxTree Tree, SourceText RazorText);

/// <summary>The generator's outcome for one project: the compilation with the generated trees, or why it did not run.</summary>
public sealed record RazorRun(bool Ran, string? Reason, CSharpCompilation Compilation, IReadOnlyList<RazorGenerated> Documents, IReadOnlyList<Diagnostic> Errors);

/// <summary>
/// Runs the Razor source generator that ships with the installed .NET SDK (never an assembly of the repository) over a
/// project's .razor/.cshtml files, with the analyzer config options the Razor SDK's MSBuild targets would write,
/// synthesised here (safe mode evaluates no MSBuild). The generated trees carry #line directives to the Razor files.
/// </summary>
public static class RazorGenerator
{
    /// <summary>Overrides the folder the generator is loaded from (tests point it at a folder without it).</summary>
    public const string DirVariable = "CA_RAZOR_GENERATOR_DIR";
    public const string AssemblyFile = "Microsoft.CodeAnalysis.Razor.Compiler.dll";

    private static readonly Lazy<(ImmutableArray<ISourceGenerator> Generators, string? Reason)> Loaded = new(Load);

    /// <summary>The SDK folder holding the generator: CA_RAZOR_GENERATOR_DIR, else the newest SDK's Razor source-generators folder.</summary>
    public static (string? Directory, string? Reason) Locate()
    {
        var env = Environment.GetEnvironmentVariable(DirVariable);
        if (!string.IsNullOrEmpty(env))
        {
            return File.Exists(Path.Combine(env, AssemblyFile))
                ? (Path.GetFullPath(env), null)
                : (null, $"Razor generator not found: {AssemblyFile} is not in {env} ({DirVariable})");
        }
        if (DotnetSdk.Root is null) return (null, "Razor generator not found: no .NET SDK root");
        var sdkDir = Path.Combine(DotnetSdk.Root, "sdk");
        if (!Directory.Exists(sdkDir)) return (null, "Razor generator not found in the .NET SDK: no sdk folder");
        var found = Directory.EnumerateDirectories(sdkDir)
            .Select(d => (Dir: Path.Combine(d, "Sdks", "Microsoft.NET.Sdk.Razor", "source-generators"), Version: SdkVersion(Path.GetFileName(d))))
            .Where(c => c.Version is not null && File.Exists(Path.Combine(c.Dir, AssemblyFile)))
            .OrderByDescending(c => c.Version)
            .FirstOrDefault();
        return found.Dir is null ? (null, "Razor generator not found in the .NET SDK") : (found.Dir, null);
    }

    private static Version? SdkVersion(string name)
    {
        var dash = name.IndexOf('-');
        return Version.TryParse(dash < 0 ? name : name[..dash], out var v) ? v : null;
    }

    /// <summary>Why the generator cannot run in this process (null when it can): the handshake and every Razor project report it.</summary>
    public static string? UnavailableReason => Loaded.Value.Reason;

    private static (ImmutableArray<ISourceGenerator>, string?) Load()
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        var loaded = LoadFromSdk();
        Server.Log.Debug($"razor generator: loaded in {watch.ElapsedMilliseconds} ms{(loaded.Item2 is { } why ? $" ({why})" : "")}");
        return loaded;
    }

    /// <summary>Stage timings for the debug log (null when debug lines go nowhere).</summary>
    private static readonly RazorStageTimes? StageTimes = Server.Log.DebugEnabled ? new RazorStageTimes() : null;

    private static (ImmutableArray<ISourceGenerator>, string?) LoadFromSdk()
    {
        var (dir, reason) = Locate();
        if (dir is null) return ([], reason);
        try
        {
            var reference = new AnalyzerFileReference(Path.Combine(dir, AssemblyFile), new SdkOnlyLoader(dir));
            var generators = reference.GetGenerators(LanguageNames.CSharp);
            return generators.IsEmpty ? ([], $"Razor generator not loaded: {AssemblyFile} declares no C# generator") : (generators, null);
        }
        catch (Exception e) when (e is IOException or BadImageFormatException or FileLoadException or ReflectionTypeLoadException or InvalidOperationException)
        {
            return ([], $"Razor generator not loaded: {e.Message}");
        }
    }

    /// <summary>
    /// Runs the generator over the project's Razor files. Never throws for the generator's own failures: they come back
    /// as a reason (the project keeps its compilation without generated trees).
    /// </summary>
    public static RazorRun Run(CSharpCompilation compilation, ProjectFile project, IReadOnlyList<RazorSource> sources, CSharpParseOptions parseOptions, CancellationToken ct)
    {
        Task? warming;
        lock (WarmGate)
        {
            // A warm-up under way does this run's first-time work: wait for it rather than do it twice at once.
            // None starts after the first run (it would only cost).
            warming = _warming;
            _warming ??= Task.CompletedTask;
        }
        warming?.Wait(ct);
        var (generators, reason) = Loaded.Value;
        if (reason is not null) return new RazorRun(false, reason, compilation, [], []);
        var texts = sources.Select(s => (AdditionalText)new RazorText(s.FullPath, s.Text)).ToImmutableArray();
        var options = new RazorOptions(ProjectOptions(project), sources);
        GeneratorDriver driver = CSharpGeneratorDriver.Create(generators, texts, parseOptions, options);
        var watch = System.Diagnostics.Stopwatch.StartNew();
        driver = driver.RunGeneratorsAndUpdateCompilation(compilation, out var updated, out var diagnostics, ct);
        if (StageTimes is not null) Server.Log.Debug($"razor generator: {project.Name}, {sources.Count} files, run {watch.ElapsedMilliseconds} ms ({StageTimes.Drain()})");
        var result = driver.GetRunResult().Results.FirstOrDefault();
        if (result.Exception is { } failure)
            return new RazorRun(false, $"Razor generator failed: {failure.GetType().Name}: {failure.Message}", compilation, [], []);
        var byHint = new Dictionary<string, RazorSource>(StringComparer.Ordinal);
        foreach (var source in sources) byHint.TryAdd(HintKey(source.ProjectRelativePath), source);
        var documents = new List<RazorGenerated>();
        foreach (var generated in result.GeneratedSources)
        {
            if (!byHint.TryGetValue(HintKey(generated.HintName), out var source)) continue;
            var origin = source.FullPath;
            Analysis.RazorMapping.Register(generated.SyntaxTree, origin);
            documents.Add(new RazorGenerated(origin, generated.SyntaxTree, source.Text));
        }
        var errors = diagnostics.Concat(result.Diagnostics)
            .Where(d => d.Severity == DiagnosticSeverity.Error)
            .DistinctBy(d => (d.Id, d.Location.GetLineSpan().Path, d.Location.GetLineSpan().StartLinePosition.Line))
            .ToList();
        return new RazorRun(true, null, (CSharpCompilation)updated, documents, errors);
    }

    private static readonly object WarmGate = new();
    private static Task? _warming;

    /// <summary>
    /// Starts, in the background, what a host process's first generator run otherwise does on the request's path:
    /// loading the generator, the first (JIT-compiled) pass of its pipeline over components and pages, and its tag-helper
    /// discovery over the framework's reference assemblies, which the generator keeps per assembly symbol (the same
    /// metadata reference objects give every later compilation the same symbols). It runs the generator once over a
    /// small synthetic project of its own, against the references <paramref name="framework"/> gives (null: none to
    /// warm up with), and discards the output. At most once per process, never after the first real run (which waits
    /// for a warm-up under way rather than do the same work beside it). Returns whether this call started it.
    /// </summary>
    public static bool Prepare(Func<(IReadOnlyList<MetadataReference> References, CSharpParseOptions ParseOptions)?> framework)
    {
        lock (WarmGate)
        {
            if (_warming is not null) return false;
            _warming = Task.Run(() => WarmUp(framework));
            return true;
        }
    }

    private static void WarmUp(Func<(IReadOnlyList<MetadataReference> References, CSharpParseOptions ParseOptions)?> framework)
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        try
        {
            var (generators, reason) = Loaded.Value;
            if (reason is not null) return;
            var inputs = framework();
            if (inputs is null) return;
            var (references, parseOptions) = inputs.Value;
            const string dir = "/ca-razor-warm-up";
            var sources = WarmUpFiles.Select(f => new RazorSource($"{dir}/{f.Path}", f.Path, SourceText.From(f.Text, Encoding.UTF8))).ToList();
            var compilation = CSharpCompilation.Create("CaRazorWarmUp", [], references, new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary));
            var texts = sources.Select(s => (AdditionalText)new RazorText(s.FullPath, s.Text)).ToImmutableArray();
            GeneratorDriver driver = CSharpGeneratorDriver.Create(generators, texts, parseOptions, new RazorOptions(GlobalOptions("CaRazorWarmUp", "Latest", "Default", dir), sources));
            driver.RunGeneratorsAndUpdateCompilation(compilation, out _, out _, CancellationToken.None);
            Server.Log.Debug($"razor generator: warmed up in {watch.ElapsedMilliseconds} ms ({StageTimes?.Drain()})");
        }
        catch (Exception e)
        {
            // Only a head start: a failure here says nothing the real run would not say for itself.
            Server.Log.Debug($"razor generator: warm-up failed after {watch.ElapsedMilliseconds} ms: {e.GetType().Name}: {e.Message}");
        }
    }

    /// <summary>
    /// The synthetic project of the warm-up: a component with a child component, parameters, an event handler, a
    /// binding and framework components; an MVC page and view with tag helpers — the generator's component and MVC paths.
    /// </summary>
    private static readonly (string Path, string Text)[] WarmUpFiles =
    [
        ("_Imports.razor", "@using Microsoft.AspNetCore.Components.Forms\n@using Microsoft.AspNetCore.Components.Web\n"),
        ("Pages/Counter.razor", """
            @page "/counter"
            <PageTitle>Counter</PageTitle>
            <h1 @onclick="Increment">@count</h1>
            <EditForm Model="this"><InputText @bind-Value="Name" /></EditForm>
            <Item Label="@Name" OnSelect="Select"><b>@context</b></Item>
            @code {
                private int count;
                public string? Name { get; set; }
                private void Increment() => count++;
                private void Select(string value) => Name = value;
            }
            """),
        ("Pages/Item.razor", """
            <li @onclick="() => OnSelect.InvokeAsync(Label)">@ChildContent(Label ?? "")</li>
            @code {
                [Parameter] public string? Label { get; set; }
                [Parameter] public EventCallback<string> OnSelect { get; set; }
                [Parameter] public RenderFragment<string> ChildContent { get; set; } = default!;
            }
            """),
        ("Views/_ViewImports.cshtml", "@addTagHelper *, Microsoft.AspNetCore.Mvc.TagHelpers\n"),
        ("Views/Home/Index.cshtml", """
            @{ ViewData["Title"] = "Home"; var items = new[] { "a", "b" }; }
            <form asp-action="Search" method="post">
                <input name="q" class="form-control" />
                <button type="submit">Search</button>
            </form>
            @foreach (var item in items) { <a asp-action="Show" asp-route-id="@item">@item</a> }
            <partial name="_Footer" />
            """),
    ];

    /// <summary>
    /// A Razor file's key among the generator's hint names: the project-relative path (or the hint without ".g.cs") with
    /// every character other than a letter or digit replaced by '_' — the generator names its output so, with or without
    /// the folders kept as folders depending on its version. (The first #line of a component may point into an
    /// _Imports.razor, so the directives cannot tell which file a tree is for.)
    /// </summary>
    private static string HintKey(string path)
    {
        var stem = path.EndsWith(".g.cs", StringComparison.Ordinal) ? path[..^".g.cs".Length] : path;
        return new string(stem.Select(c => char.IsLetterOrDigit(c) ? c : '_').ToArray());
    }

    /// <summary>An AdditionalFile whose text was already read safely.</summary>
    private sealed class RazorText(string path, SourceText text) : AdditionalText
    {
        public override string Path { get; } = path;
        public override SourceText GetText(CancellationToken cancellationToken = default) => text;
    }

    /// <summary>The global options the Razor SDK's targets write to the generated .editorconfig, from the project's static properties.</summary>
    private static Dictionary<string, string> ProjectOptions(ProjectFile project) =>
        GlobalOptions(project.Property("RootNamespace") ?? project.Name, project.Property("RazorLangVersion") ?? "Latest",
            project.Property("RazorConfiguration") ?? "Default", project.DirectoryPath);

    private static Dictionary<string, string> GlobalOptions(string rootNamespace, string langVersion, string configuration, string directory) =>
        new(StringComparer.Ordinal)
        {
            ["build_property.RootNamespace"] = rootNamespace,
            ["build_property.RazorLangVersion"] = langVersion,
            ["build_property.RazorConfiguration"] = configuration,
            ["build_property.MSBuildProjectDirectory"] = directory,
        };

    /// <summary>The options the Razor SDK's targets write to the generated .editorconfig: global ones and each file's TargetPath.</summary>
    private sealed class RazorOptions : AnalyzerConfigOptionsProvider
    {
        private readonly Options _global;
        private readonly Dictionary<string, Options> _files = new(StringComparer.Ordinal);

        public RazorOptions(Dictionary<string, string> global, IReadOnlyList<RazorSource> sources)
        {
            _global = new Options(global);
            foreach (var s in sources)
            {
                // The SDK writes TargetPath base64-encoded (its value may hold characters .editorconfig cannot).
                var target = Convert.ToBase64String(Encoding.UTF8.GetBytes(s.ProjectRelativePath.Replace('/', Path.DirectorySeparatorChar)));
                _files[s.FullPath] = new Options(new Dictionary<string, string>(StringComparer.Ordinal)
                {
                    ["build_metadata.AdditionalFiles.TargetPath"] = target,
                });
            }
        }

        public override AnalyzerConfigOptions GlobalOptions => _global;
        public override AnalyzerConfigOptions GetOptions(SyntaxTree tree) => Options.Empty;
        public override AnalyzerConfigOptions GetOptions(AdditionalText textFile) =>
            _files.TryGetValue(textFile.Path, out var o) ? o : Options.Empty;
    }

    private sealed class Options(Dictionary<string, string> values) : AnalyzerConfigOptions
    {
        public static readonly Options Empty = new([]);
        public override bool TryGetValue(string key, out string value)
        {
            if (values.TryGetValue(key, out var v))
            {
                value = v;
                return true;
            }
            value = "";
            return false;
        }
    }

    /// <summary>
    /// Loads analyzer assemblies only from the SDK's generator folder, in a context of their own: Roslyn itself comes from
    /// the host (shared with the default context), and any path outside that folder is refused.
    /// </summary>
    private sealed class SdkOnlyLoader(string directory) : IAnalyzerAssemblyLoader
    {
        private readonly string _directory = Path.GetFullPath(directory).TrimEnd(Path.DirectorySeparatorChar) + Path.DirectorySeparatorChar;
        private readonly Context _context = new(Path.GetFullPath(directory));

        public void AddDependencyLocation(string fullPath) => Admit(fullPath);

        public Assembly LoadFromPath(string fullPath) => _context.LoadFromAssemblyPath(Admit(fullPath));

        private string Admit(string fullPath)
        {
            var full = Path.GetFullPath(fullPath);
            if (!full.StartsWith(_directory, StringComparison.Ordinal))
                throw new InvalidOperationException($"refused to load {full}: only the .NET SDK's Razor generator folder is admitted");
            return full;
        }

        private sealed class Context(string directory) : AssemblyLoadContext("razor-generator", isCollectible: false)
        {
            protected override Assembly? Load(AssemblyName name)
            {
                // Roslyn and the runtime are the host's: the generator must see the same Microsoft.CodeAnalysis types.
                if (AssemblyLoadContext.Default.Assemblies.FirstOrDefault(a => a.GetName().Name == name.Name) is { } shared) return shared;
                var candidate = Path.Combine(directory, name.Name + ".dll");
                return File.Exists(candidate) ? LoadFromAssemblyPath(candidate) : null;
            }
        }
    }
}
