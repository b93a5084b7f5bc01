using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Tracing;

namespace CodeAgent.RoslynHost.Loading;

/// <summary>
/// Debug log only: listens to the Razor generator's own event source (start/stop pairs around its stages: tag-helper
/// discovery over the references and over the compilation, declaration code, parse, tag-helper rewrite, code
/// generation) and sums each stage's time, so a loaded project's log line says where its generator run went. Created
/// only when debug lines are written: an EventListener costs every event of the generator.
/// </summary>
public sealed class RazorStageTimes : EventListener
{
    private const string SourceName = "Microsoft-DotNet-SDK-Razor-SourceGenerator";
    private readonly ConcurrentDictionary<string, long> _totals = new(StringComparer.Ordinal);
    private readonly ThreadLocal<Dictionary<string, long>> _open = new(() => new Dictionary<string, long>(StringComparer.Ordinal));

    protected override void OnEventSourceCreated(EventSource source)
    {
        if (source.Name == SourceName) EnableEvents(source, EventLevel.Informational);
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        var name = e.EventName;
        if (name is null) return;
        var now = Stopwatch.GetTimestamp();
        // A file's stages nest per thread; the file name (first payload) keeps concurrent files apart.
        var file = e.Payload is { Count: > 0 } p ? p[0] as string ?? "" : "";
        if (name.EndsWith("Start", StringComparison.Ordinal)) _open.Value![name[..^5] + "|" + file] = now;
        else if (name.EndsWith("Stop", StringComparison.Ordinal) && _open.Value!.Remove(name[..^4] + "|" + file, out var started))
            _totals.AddOrUpdate(name[..^4], now - started, (_, t) => t + now - started);
    }

    /// <summary>The stages' summed milliseconds since the last call ("Stage 12, Other 3"), and resets them.</summary>
    public string Drain()
    {
        var parts = new List<string>();
        foreach (var key in _totals.Keys.OrderBy(k => k, StringComparer.Ordinal))
            if (_totals.TryRemove(key, out var ticks)) parts.Add($"{key} {ticks * 1000 / Stopwatch.Frequency}");
        return parts.Count == 0 ? "no stage events" : string.Join(", ", parts);
    }
}
