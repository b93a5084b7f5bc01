using System.Diagnostics;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Analysis;

/// <summary>
/// Loaded projects plus per-document analysis caches. Reference counts need every document of every
/// loaded project analysed once; later batches reuse the cache until a load or unload invalidates it.
/// Only the worker thread mutates it; ping reads ProjectCount.
/// </summary>
public sealed class HostWorkspace
{
    private readonly Dictionary<string, LoadedProject> _projects = new(StringComparer.Ordinal);
    private readonly System.Collections.Concurrent.ConcurrentDictionary<(string Project, string Path), DocumentAnalysis> _cache = new();
    private Dictionary<string, int>? _counts;
    // Debug log: time spent analysing Razor documents and .cs documents (summed over threads) since the last analyze.
    private long _razorTicks;
    private long _csTicks;
    private volatile int _projectCount;

    public int ProjectCount => _projectCount;

    public void Replace(IReadOnlyList<LoadedProject> loaded)
    {
        // A reload that returns the very same LoadedProject (SafeProjectLoader reuses unchanged loads) keeps
        // that project's cached analyses; only projects whose compilation changed are analysed again.
        var changed = false;
        foreach (var p in loaded)
        {
            if (_projects.TryGetValue(p.ProjectId, out var old) && ReferenceEquals(old, p)) continue;
            _projects[p.ProjectId] = p;
            foreach (var key in _cache.Keys.Where(k => k.Project == p.ProjectId).ToList()) _cache.TryRemove(key, out _);
            changed = true;
        }
        if (changed) _counts = null;
        _projectCount = _projects.Count;
    }

    public int Unload(string? projectId)
    {
        int n;
        if (projectId is null)
        {
            n = _projects.Count;
            _projects.Clear();
        }
        else n = _projects.Remove(projectId) ? 1 : 0;
        Loading.SafeProjectLoader.ForgetLoads(projectId);
        Invalidate();
        return n;
    }

    private void Invalidate()
    {
        _cache.Clear();
        _counts = null;
        _projectCount = _projects.Count;
    }

    public AnalyzeResult Analyze(AnalyzeParams p, CancellationToken ct)
    {
        var watch = Stopwatch.StartNew();
        if (_projects.Count == 0) throw new HostException(ErrorCodes.InvalidRequest, "no project loaded: call loadProject first");
        LoadedProject? scope = null;
        if (p.ProjectId is not null && !_projects.TryGetValue(p.ProjectId, out scope))
            throw new HostException(ErrorCodes.InvalidRequest, $"project {p.ProjectId} is not loaded");

        var selected = new List<(LoadedProject Project, LoadedDocument Doc)>();
        var missing = new List<string>();
        if (p.Paths is { } paths)
        {
            foreach (var raw in paths)
            {
                var found = Find(raw, scope);
                if (found is null) missing.Add(raw);
                else selected.Add(found.Value);
            }
        }
        else
        {
            foreach (var project in scope is null ? _projects.Values.ToList() : [scope])
                selected.AddRange(project.Documents.Select(d => (project, d)));
        }

        var includeCounts = p.IncludeReferenceCounts ?? true;
        var includeExternal = p.IncludeExternalTargets ?? true;
        var includeDiagnostics = p.IncludeDiagnostics ?? false;
        var counts = includeCounts ? ReferenceCounts(ct) : null;
        if (counts is null) Prefetch(selected, ct);

        var docs = new List<DocumentResult>(selected.Count);
        var lines = 0;
        foreach (var (project, doc) in selected)
        {
            ct.ThrowIfCancellationRequested();
            var analysis = Get(project, doc, ct);
            lines += analysis.LineCount;
            var symbols = analysis.Symbols
                .Select(s => counts is null ? s.Record : s.Record with { ReferenceCount = counts.GetValueOrDefault(s.CountKey) })
                .ToList();
            var edges = includeExternal ? analysis.Edges : analysis.Edges.Where(e => e.TargetPath is not null).ToList();
            var diagnostics = includeDiagnostics ? DocumentAnalyzer.Diagnostics(project, doc, ct) : null;
            docs.Add(new DocumentResult(doc.RelativePath, project.ProjectId, analysis.Generated, analysis.LineCount, symbols, edges, diagnostics));
        }
        if (Log.DebugEnabled)
        {
            var ms = (long ticks) => ticks * 1000 / Stopwatch.Frequency;
            Log.Debug($"analyze {p.ProjectId ?? "all"}: {docs.Count} documents ({selected.Count(s => s.Doc.Razor)} Razor) in {watch.ElapsedMilliseconds} ms; "
                + $"analysis time over threads: .cs {ms(Interlocked.Exchange(ref _csTicks, 0))} ms, Razor {ms(Interlocked.Exchange(ref _razorTicks, 0))} ms");
        }
        return new AnalyzeResult(docs, missing, new AnalyzeStats(docs.Count, lines, watch.ElapsedMilliseconds));
    }

    private (LoadedProject, LoadedDocument)? Find(string raw, LoadedProject? scope)
    {
        foreach (var project in scope is null ? _projects.Values.ToList() : [scope])
        {
            var full = Path.GetFullPath(Path.IsPathRooted(raw) ? raw : Path.Combine(project.RepoRoot, raw));
            var doc = project.Documents.FirstOrDefault(d => string.Equals(d.FullPath, full, StringComparison.Ordinal));
            if (doc is not null) return (project, doc);
        }
        return null;
    }

    private DocumentAnalysis Get(LoadedProject project, LoadedDocument doc, CancellationToken ct)
    {
        var key = (project.ProjectId, doc.RelativePath);
        if (_cache.TryGetValue(key, out var cached)) return cached;
        var started = Stopwatch.GetTimestamp();
        var analysis = new DocumentAnalyzer(project, doc, ct).Run();
        Interlocked.Add(ref doc.Razor ? ref _razorTicks : ref _csTicks, Stopwatch.GetTimestamp() - started);
        _cache[key] = analysis;
        return analysis;
    }

    /// <summary>
    /// Analyses documents on one thread per core. Dedicated threads with large stacks (not the thread
    /// pool) so that Roslyn's recursive binding of deeply nested expressions has room.
    /// </summary>
    private void Prefetch(IReadOnlyList<(LoadedProject Project, LoadedDocument Doc)> docs, CancellationToken ct)
    {
        // Longest first: a long document (a Razor page's generated C#, listed after the .cs files) taken last would leave
        // the other threads idle while it is analysed.
        var todo = new System.Collections.Concurrent.ConcurrentQueue<(LoadedProject, LoadedDocument)>(
            docs.Where(d => !_cache.ContainsKey((d.Project.ProjectId, d.Doc.RelativePath))).OrderByDescending(d => d.Doc.Tree.Length));
        var threads = Math.Min(Environment.ProcessorCount, todo.Count);
        if (threads <= 1) return;
        Exception? failure = null;
        var workers = Enumerable.Range(0, threads).Select(_ => new Thread(() =>
        {
            try
            {
                while (!ct.IsCancellationRequested && todo.TryDequeue(out var item)) Get(item.Item1, item.Item2, ct);
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref failure, e, null);
            }
        }, 256 * 1024 * 1024) { IsBackground = true }).ToList();
        foreach (var w in workers) w.Start();
        foreach (var w in workers) w.Join();
        ct.ThrowIfCancellationRequested();
        if (failure is not null) System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(failure).Throw();
    }

    /// <summary>Use sites per target (assembly|docId) over every document of every loaded project.</summary>
    private Dictionary<string, int> ReferenceCounts(CancellationToken ct)
    {
        if (_counts is not null) return _counts;
        var counts = new Dictionary<string, int>(StringComparer.Ordinal);
        Prefetch(_projects.Values.SelectMany(p => p.Documents.Select(d => (p, d))).ToList(), ct);
        foreach (var project in _projects.Values)
        {
            foreach (var doc in project.Documents)
            {
                var analysis = Get(project, doc, ct);
                foreach (var key in analysis.UseSites) counts[key] = counts.GetValueOrDefault(key) + 1;
            }
        }
        _counts = counts;
        return counts;
    }
}

public sealed record SymbolEntry(SymbolRecord Record, string CountKey);

/// <summary>Cached result for one document; UseSites holds one count key per distinct use site.</summary>
public sealed record DocumentAnalysis(
    bool Generated,
    int LineCount,
    IReadOnlyList<SymbolEntry> Symbols,
    IReadOnlyList<EdgeRecord> Edges,
    IReadOnlyList<string> UseSites);
