/* The table of state_arrays.h: what the snapshots and the checkpoints store
 * of a swarm, and how. */
#include "state_arrays.h"

const struct state_array state_arrays[STATE_ARRAYS] = {
    {"position", "position", 0, STATE_FLOAT64, STATE_PER_COORDINATE,
     offsetof(struct swarm_state, position), "objective variables", "particle positions",
     "particle positions"},
    {"velocity", "velocity", 0, STATE_FLOAT64, STATE_PER_COORDINATE,
     offsetof(struct swarm_state, velocity), "objective variables per iteration",
     "particle velocities", "particle velocities"},
    {"pbest_position", "pbest_position", 0, STATE_FLOAT64, STATE_PER_COORDINATE,
     offsetof(struct swarm_state, pbest_position), "objective variables",
     "best position each particle has visited", "best position each particle has visited"},
    {"cost", "fitness", 1, STATE_FLOAT64, STATE_PER_PARTICLE, offsetof(struct swarm_state, cost),
     "objective units", "cost at the position (fitness, negated when maximizing)",
     "fitness at the position"},
    {"pbest_cost", "pbest_fitness", 1, STATE_FLOAT64, STATE_PER_PARTICLE,
     offsetof(struct swarm_state, pbest_cost), "objective units",
     "cost at the personal best position", "fitness at the personal best position"},
};

double *state_array_data(const struct state_array *a, const struct swarm_state *s)
{
  return *(double *const *)((const char *)s + a->member);
}

int state_array_rank(const struct state_array *a)
{
  return a->shape == STATE_PER_COORDINATE ? 2 : 1;
}

int64_t state_array_width(const struct state_array *a, int dims)
{
  return a->shape == STATE_PER_COORDINATE ? dims : 1;
}

hid_t state_array_file_type(const struct state_array *a)
{
  (void)a; /* STATE_FLOAT64 is the only element type */
  return H5T_IEEE_F64LE;
}

hid_t state_array_mem_type(const struct state_array *a)
{
  (void)a;
  return H5T_NATIVE_DOUBLE;
}
