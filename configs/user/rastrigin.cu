/* Rastrigin written as a user objective: the same function as the built-in
 * `rastrigin`, in the C subset that both C and CUDA compile. ipso_real is
 * float or double as run.precision says; writing constants as ipso_real
 * keeps the arithmetic in that precision on the GPU. */
ipso_real rastrigin_user(const ipso_real *x, int d)
{
  const ipso_real two_pi = (ipso_real)6.283185307179586;
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += x[i] * x[i] - (ipso_real)10 * cos(two_pi * x[i]) + (ipso_real)10;
  return s;
}
