using System.Text.Json;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Cancels a queued or running request by id; the cancelled request answers `cancelled`.</summary>
public sealed class CancelHandler : IRequestHandler
{
    public string Method => Methods.Cancel;
    public bool Inline => true;
    public int DefaultDeadlineMs => 5_000;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        var p = Json.Params<CancelParams>(parameters);
        return new CancelResult(context.State.CancelRequest(p.Id));
    }
}
