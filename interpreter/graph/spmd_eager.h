// Eager ops on sharded tensors (SPEC §7.1, as DTensor's eager mode): an op with an operand stored
// as its devices' blocks runs as a graph of that one node on the operand's mesh, placed,
// partitioned and run on the devices' threads by the SPMD executor like any graph function —
// the same sharding rules, collectives and communication counts. Its results stay sharded. A
// whole operand beside a sharded one counts as replicated on its mesh.
#pragma once

namespace weft::graph {

// Makes ops::apply run ops with a sharded operand this way.
void installEagerSpmd();
// Lets go of this thread's runners and their device threads (an interpreter that ends: nothing
// of its values may outlive it).
void releaseEagerSpmd();

}  // namespace weft::graph
