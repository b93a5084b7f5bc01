using System.Text.Json;
using CodeAgent.RoslynHost.Loading;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Loads a project (safe mode: no MSBuild evaluation) and its project references.</summary>
public sealed class LoadProjectHandler : IRequestHandler
{
    public string Method => Methods.LoadProject;
    public bool Inline => false;
    public int DefaultDeadlineMs => ProtocolInfo.DefaultLoadDeadlineMs;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        var p = Json.Params<LoadProjectParams>(parameters);
        if (p.SafeMode == false)
        {
            throw new HostException(ErrorCodes.SemanticUnavailable, HandlerRegistry.UnsafeModeUnavailable);
        }
        var watch = System.Diagnostics.Stopwatch.StartNew();
        var loader = new SafeProjectLoader(p, context.CancellationToken);
        var loaded = loader.Load();
        Log.Debug($"loadProject {p.ProjectPath}: {loaded.Count} projects in {watch.ElapsedMilliseconds} ms");
        context.State.Workspace.Replace(loaded);
        return new LoadProjectResult(loaded.Select(l => l.Info).ToList(), loader.Warnings);
    }
}
