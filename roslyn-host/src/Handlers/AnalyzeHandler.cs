using System.Text.Json;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Emits symbols and exact edges for a batch of documents (or whole projects).</summary>
public sealed class AnalyzeHandler : IRequestHandler
{
    public string Method => Methods.Analyze;
    public bool Inline => false;
    public int DefaultDeadlineMs => ProtocolInfo.DefaultBatchDeadlineMs;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        var p = parameters is null ? new AnalyzeParams(null, null, null, null, null) : Json.Params<AnalyzeParams>(parameters);
        return context.State.Workspace.Analyze(p, context.CancellationToken);
    }
}
