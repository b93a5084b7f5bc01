using System.Text.Json;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Drops one loaded project (or all of them) and the analysis caches.</summary>
public sealed class UnloadProjectHandler : IRequestHandler
{
    public string Method => Methods.UnloadProject;
    public bool Inline => false;
    public int DefaultDeadlineMs => 10_000;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        var p = parameters is null ? new UnloadProjectParams(null) : Json.Params<UnloadProjectParams>(parameters);
        return new UnloadProjectResult(context.State.Workspace.Unload(p.ProjectId));
    }
}
