// bench/case.cuh — included by bench.cu inside its anonymous namespace,
// after baselines.cuh: one case, an idiom at one size. run_case allocates
// the input sets, runs the variants (polymma's launcher, cuBLAS, cuBLASLt,
// cublas_1pw), gates each against fp64 samples and the reference variant,
// times them together (time_all) and writes their CSV rows; it reads
// bench.cu's globals (stream, handles, --warmup/--reps, the manifest's
// kernels[], the CSV file) and counts failures in n_fail.

// ---- one case: an idiom at one size --------------------------------------
struct Kernel {	// what run.sh's manifest says of one idiom
	std::string status = "", config = "", note = "";
};
Kernel kernels[BENCH_N_IDIOMS];

// A variant: run(set, out) enqueues one evaluation of the idiom on input set
// `set` into `out`; returns "" or what went wrong.
using RunFn = std::function<std::string(int set, Out *out)>;
using dt::OutBits;

// Times the ready variants together, so that clock or thermal drift hits
// them alike. Warm-up: at least `warmup` rounds and 25 ms; then R rounds,
// R = max(--reps, enough for ~60 ms), at most 1000. A round calls every
// variant once, between its own pair of events, starting with a different
// variant each round; the input sets rotate over the calls (consecutive
// calls never share one). Returns each variant's median in ms (NAN if not
// ready), the rounds in *rounds and the first error of each variant.
void time_all(const RunFn *run, const bool *ready, int nvar,
	const std::vector<Set> &sets, double *ms, int *rounds, std::string *err) {
	const int ns = (int)sets.size();
	std::vector<int> vs;
	for (int v = 0; v < nvar; ++v) {
		ms[v] = NAN;
		if (ready[v])
			vs.push_back(v);
	}
	*rounds = 0;
	if (vs.empty())
		return;
	const int nv = (int)vs.size();
	uint64_t call = 0;
	auto one = [&](int v) {
		int s = (int)(call++ % (uint64_t)ns);
		std::string e = run[v](s, sets[s].O);
		if (err[v].empty())
			err[v] = e;
	};
	auto round = [&](int r, std::vector<cudaEvent_t> *ev) {
		for (int q = 0; q < nv; ++q) {
			int i = (q + r) % nv, v = vs[i];
			if (ev)
				CK(cudaEventRecord(ev[i][2 * r], st));
			one(v);
			if (ev)
				CK(cudaEventRecord(ev[i][2 * r + 1], st));
		}
	};
	auto now_ms = [] {
		return std::chrono::duration<double, std::milli>(
			std::chrono::steady_clock::now().time_since_epoch()).count();
	};
	double t0 = now_ms(), el;
	int done = 0, batch = warmup;
	for (;;) {
		for (int r = 0; r < batch; ++r)
			round(done + r, nullptr);
		done += batch;
		CK(cudaStreamSynchronize(st));
		el = now_ms() - t0;
		if (el >= 25.0 || done >= 4096)
			break;
		batch = done;
	}
	int R = (int)std::ceil(60.0 / (el / done));
	R = std::min(1000, std::max(reps, R));
	std::vector<std::vector<cudaEvent_t>> ev(nv, std::vector<cudaEvent_t>(2 * R));
	for (auto &x : ev)
		for (auto &e : x)
			CK(cudaEventCreate(&e));
	for (int r = 0; r < R; ++r)
		round(r, ev.data());
	CK(cudaStreamSynchronize(st));
	for (int i = 0; i < nv; ++i) {
		std::vector<double> t(R);
		for (int r = 0; r < R; ++r) {
			float x;
			CK(cudaEventElapsedTime(&x, ev[i][2 * r], ev[i][2 * r + 1]));
			t[r] = x;
		}
		ms[vs[i]] = bench_median(t.data(), R);
	}
	for (auto &x : ev)
		for (auto &e : x)
			CK(cudaEventDestroy(e));
	*rounds = R;
}

void poison(Out *p, int64_t n) {	// a NaN in f16 and bf16, no i8 product in i32
	CK(cudaMemsetAsync(p, dt::poison_byte, (size_t)n * sizeof(Out), st));
}
template <class Bits>
std::vector<Bits> to_host(const void *p, int64_t n) {
	std::vector<Bits> h((size_t)n);
	CK(cudaMemcpyAsync(h.data(), p, (size_t)n * sizeof(Bits), cudaMemcpyDeviceToHost, st));
	CK(cudaStreamSynchronize(st));
	return h;
}

// The idiom in fp64 at sampled entries, from host copies of set 0's inputs.
struct Sample { int64_t i, j; double v; };
std::vector<Sample> fp64_samples(Idiom id, int64_t M, int64_t N, int64_t K,
	const Set &s0, uint64_t seed) {
	std::vector<double> A, B, E, F, bias;
	auto fetch = [](const In *p, int64_t n) {
		std::vector<dt::InBits> h = to_host<dt::InBits>(p, n);
		std::vector<double> f((size_t)n);
		for (size_t i = 0; i < h.size(); ++i)
			f[i] = dt::in_value(h[i]);
		return f;
	};
	// B(k, j): row-major K x N, or (i8, f8) N x K, K-major
	const int64_t bk = dt::b_kmajor ? 1 : N, bj = dt::b_kmajor ? K : 1;
	A = fetch(s0.A, M * K);
	B = fetch(s0.B, K * N);
	if (id == ADD_GEMM) {
		E = fetch(s0.E, M * K);
		F = fetch(s0.F, K * N);
	}
	if (id == GEMM_BIAS_RELU)
		bias = fetch(s0.bias, N);
	std::vector<Sample> v;
	uint64_t r = seed;
	for (int q = 0; q < 256; ++q) {
		Sample x;
		x.i = q == 0 ? 0 : q == 1 ? M - 1 : (int64_t)(bench_rng_next(&r) % (uint64_t)M);
		x.j = q == 0 ? 0 : q == 1 ? N - 1 : (int64_t)(bench_rng_next(&r) % (uint64_t)N);
		double acc = 0, acc2 = 0;
		for (int64_t k = 0; k < K; ++k) {
			double a = A[x.i * K + k], b = B[k * bk + x.j * bj];
			if (id == RELU_GEMM && a < 0)
				a = 0;
			acc += a * b;
			if (id == ADD_GEMM)
				acc2 += E[x.i * K + k] * F[k * N + x.j];
		}
		if (id == GEMM_BIAS_RELU)
			acc = std::max(acc + bias[x.j], 0.0);
		if (id == ADD_GEMM)
			acc += acc2;
		x.v = acc;
		v.push_back(x);
	}
	return v;
}

bench_cmp check_samples(const std::vector<OutBits> &out, int64_t N,
	const std::vector<Sample> &smp) {
	std::vector<double> o, r;
	for (const Sample &x : smp) {
		o.push_back(dt::out_value(out[(size_t)(x.i * N + x.j)]));
		r.push_back(x.v);
	}
	return dt::compare_values(o.data(), r.data(), (int64_t)o.size());
}

std::string fmt_cmp(const char *what, const bench_cmp &c) {
	char b[160];
	snprintf(b, sizeof b, "%s: rel_l2=%.3e max_err=%.3e nonfinite=%lld", what,
		c.rel_l2, c.max_err, (long long)c.nonfinite);
	return b;
}

const char *idiom_name(Idiom id) { return bench_idioms[id]; }

void init_row(bench_row &r, const bench_size &sz, Idiom id, const char *variant) {
	memset(&r, 0, sizeof r);
	snprintf(r.set, sizeof r.set, "%s", sz.set);
	snprintf(r.idiom, sizeof r.idiom, "%s", idiom_name(id));
	r.m = sz.m; r.n = sz.n; r.k = sz.k;
	snprintf(r.variant, sizeof r.variant, "%s", variant);
	r.ms = r.tflops = r.speedup_cublas = r.speedup_cublaslt = NAN;
	r.rel_err = r.max_err = NAN;
}
void set_status(bench_row &r, const char *status, const std::string &note) {
	snprintf(r.status, sizeof r.status, "%s", status);
	bench_field(r.note, sizeof r.note, note.c_str());
}
void set_config(bench_row &r, const std::string &c) {
	bench_field(r.config, sizeof r.config, c.c_str());
}

// The baselines' variants on one input set X into OUT. Templates on the
// set's type, so that the pointwise kernels (f16 and bf16 only) are not
// instantiated for i8 and f8 (the GEMM idiom only: run_case stops before).
template <class S>
std::string run_cublas(const S &x, Idiom id, Out *out, int64_t M, int64_t N, int64_t K) {
	if constexpr (dt::gemm_only) {
		return blas_err(gemm_ex(x.A, x.B, out, M, N, K));
	} else {
		const int64_t mk = M * K, mn = M * N;
		switch (id) {
		case GEMM:
			return blas_err(gemm_ex(x.A, x.B, out, M, N, K));
		case RELU_GEMM:
			relu_kernel<<<grid_for(mk), 256, 0, st>>>(x.A, x.Ar, mk);
			return blas_err(gemm_ex(x.Ar, x.B, out, M, N, K));
		case GEMM_BIAS_RELU: {	// one kernel per operation
			std::string e = blas_err(gemm_ex(x.A, x.B, out, M, N, K));
			bias_kernel<Out, false><<<grid_for(mn), 256, 0, st>>>(out, x.bias, M, N);
			relu_kernel<<<grid_for(mn), 256, 0, st>>>(out, out, mn);
			return e;
		}
		case ADD_GEMM: {
			std::string e = blas_err(gemm_ex(x.A, x.B, x.T1, M, N, K));
			if (e.empty()) e = blas_err(gemm_ex(x.E, x.F, x.T2, M, N, K));
			add_kernel<<<grid_for(mn), 256, 0, st>>>(x.T1, x.T2, out, mn);
			return e;
		}
		}
		return "bad idiom";
	}
}

template <class S>
std::string run_cublaslt(const S &x, const LtPlan &plan, int s, Idiom id, Out *out,
	int64_t M, int64_t K) {
	if constexpr (dt::gemm_only) {
		return blas_err(lt_matmul(plan, plan.desc, x.A, x.B, out, 0.0f));
	} else {
		switch (id) {
		case GEMM:
			return blas_err(lt_matmul(plan, plan.desc, x.A, x.B, out, 0.0f));
		case RELU_GEMM:
			relu_kernel<<<grid_for(M * K), 256, 0, st>>>(x.A, x.Ar, M * K);
			return blas_err(lt_matmul(plan, plan.desc, x.Ar, x.B, out, 0.0f));
		case GEMM_BIAS_RELU:
			return blas_err(lt_matmul(plan, plan.bias_desc[s], x.A, x.B, out, 0.0f));
		case ADD_GEMM: {
			std::string e = blas_err(lt_matmul(plan, plan.desc, x.A, x.B, out, 0.0f));
			if (e.empty())
				e = blas_err(lt_matmul(plan, plan.desc, x.E, x.F, out, 1.0f));
			return e;
		}
		}
		return "bad idiom";
	}
}

template <class S>
std::string run_cublas_1pw(const S &x, Out *out, int64_t M, int64_t N, int64_t K) {
	if constexpr (dt::gemm_only) {
		return "bad idiom";
	} else {
		std::string e = blas_err(gemm_ex(x.A, x.B, out, M, N, K));
		bias_kernel<Out, true><<<grid_for(M * N), 256, 0, st>>>(out, x.bias, M, N);
		return e;
	}
}

bool launcher_linked(Idiom id) {
	return id == GEMM ? bench_gemm != nullptr :
		id == RELU_GEMM ? bench_relu_gemm != nullptr :
		id == GEMM_BIAS_RELU ? bench_gemm_bias_relu != nullptr :
		bench_add_gemm != nullptr;
}

void run_case(const bench_size &sz, Idiom id, uint64_t seed) {
	const int64_t M = sz.m, N = sz.n, K = sz.k, mk = M * K, kn = K * N, mn = M * N;
	// polymma, cublas, cublaslt; for GEMM+bias+ReLU also cublas_1pw (the
	// paper's baseline with its two pointwise kernels fused by hand into
	// one: stricter than the paper's, reported beside it).
	const int nv = id == GEMM_BIAS_RELU ? 4 : 3;
	bench_row row[4];
	const char *vname[4] = {"polymma", "cublas", "cublaslt", "cublas_1pw"};
	// The gate's reference: cublas (f16, bf16) or cublaslt (i8, f8).
	const int R = dt::ref_variant;
	for (int v = 0; v < nv; ++v)
		init_row(row[v], sz, id, vname[v]);
	set_config(row[1], id == GEMM ? (dt::b_kmajor ? "cublasGemmEx TN" : "cublasGemmEx") :
		id == ADD_GEMM ? "2x cublasGemmEx + add kernel" :
		id == RELU_GEMM ? "relu kernel + cublasGemmEx" :
		"cublasGemmEx + bias kernel + relu kernel");
	if (nv == 4)
		set_config(row[3], "cublasGemmEx + bias_relu kernel");
	set_config(row[0], kernels[id].config);

	auto emit = [&]() {
		for (int v = 0; v < nv; ++v) {
			bench_csv_write_row(csv, &row[v]);
			if (!strcmp(row[v].status, "fail") || !strcmp(row[v].status, "error"))
				n_fail++;
		}
		fflush(csv);
		auto t = [&](int v) {
			char b[64];
			if (!strcmp(row[v].status, "ok"))
				snprintf(b, sizeof b, "%9.4f ms %6.1f TF/s", row[v].ms, row[v].tflops);
			else
				snprintf(b, sizeof b, "%-24s", row[v].status);
			return std::string(b);
		};
		auto x = [](double v) {
			char b[32];
			if (std::isfinite(v)) snprintf(b, sizeof b, "%.3fx", v);
			else snprintf(b, sizeof b, "-");
			return std::string(b);
		};
		std::string pw;
		if (nv == 4)
			pw = " | cublas_1pw " + t(3) + ", vs it " + x(row[3].ms / row[0].ms);
		printf("%-15s %-6s %5" PRId64 "x%5" PRId64 "x%5" PRId64 " | polymma %s | "
			"cublas %s | cublaslt %s | vs cublas %s, vs cublaslt %s%s\n",
			idiom_name(id), sz.set, M, N, K, t(0).c_str(), t(1).c_str(),
			t(2).c_str(), x(row[0].speedup_cublas).c_str(),
			x(row[0].speedup_cublaslt).c_str(), pw.c_str());
		fflush(stdout);
	};

	// i8 and f8: the GEMM idiom only (no baselines, no specs for the others)
	if (dt::gemm_only && id != GEMM) {
		std::string why = std::string("bench --dtype ") + dt::name +
			" has the GEMM idiom only";
		for (int v = 0; v < nv; ++v)
			set_status(row[v], "unsupported", why);
		emit();
		return;
	}

	// ---- buffers: as many input sets as cover 2x L2, 2 to 16, memory allowing
	const double bi = (double)sizeof(In), bo = (double)sizeof(Out);
	double set_bytes = bi * (double)(mk + kn) + bo * (double)mn;
	if (id == ADD_GEMM) set_bytes += bi * (double)(mk + kn) + 2.0 * bo * (double)mn;
	if (id == RELU_GEMM) set_bytes += bi * (double)mk;
	if (id == GEMM_BIAS_RELU) set_bytes += bi * (double)N;
	int nsets = (int)std::min(16.0, std::max(2.0, std::ceil(2.0 * l2_bytes / set_bytes)));
	size_t free_b, total_b;
	CK(cudaMemGetInfo(&free_b, &total_b));
	while (nsets > 2 && nsets * set_bytes + bo * mn > 0.8 * free_b)
		nsets--;
	if (nsets * set_bytes + bo * mn > 0.8 * free_b) {
		for (int v = 0; v < nv; ++v)
			set_status(row[v], "error", "not enough device memory for 2 input sets");
		emit();
		return;
	}
	std::vector<Set> sets(nsets);
	std::vector<void *> allocs;
	auto dalloc = [&](int64_t n, size_t elem) {
		void *p = nullptr;
		CK(cudaMalloc(&p, (size_t)std::max<int64_t>(n, 1) * elem));
		allocs.push_back(p);
		return p;
	};
	auto din = [&](int64_t n) { return (In *)dalloc(n, sizeof(In)); };
	auto dout = [&](int64_t n) { return (Out *)dalloc(n, sizeof(Out)); };
	auto fill = [&](In *p, int64_t n, uint64_t s) {
		fill_typed<<<1024, 256, 0, st>>>(p, n, s);
		CK(cudaGetLastError());
	};
	for (int s = 0; s < nsets; ++s) {
		Set &x = sets[s];
		uint64_t b = seed + 64 * (uint64_t)s;
		x.A = din(mk); fill(x.A, mk, mix(b));
		x.B = din(kn); fill(x.B, kn, mix(b + 1));
		x.O = dout(mn);
		if (id == ADD_GEMM) {
			x.E = din(mk); fill(x.E, mk, mix(b + 2));
			x.F = din(kn); fill(x.F, kn, mix(b + 3));
			x.T1 = dout(mn);
			x.T2 = dout(mn);
		}
		if (id == RELU_GEMM)
			x.Ar = din(mk);
		if (id == GEMM_BIAS_RELU) {
			x.bias = din(N); fill(x.bias, N, mix(b + 4));
		}
	}
	Out *Ochk = dout(mn);
	CK(cudaStreamSynchronize(st));

	// ---- the three variants
	LtPlan plan;
	bool lt_ok = lt_prepare(plan, id, M, N, K, sets);
	set_config(row[2], lt_ok ? (id == RELU_GEMM ? "relu kernel + " + plan.info :
		id == ADD_GEMM ? "2x " + plan.info + " (beta=1)" :
		id == GEMM_BIAS_RELU ? plan.info + " epilogue=RELU_BIAS" : plan.info) : "cublasLt");

	RunFn run[4];
	run[0] = [&](int s, Out *out) -> std::string {
		const Set &x = sets[s];
		cudaError_t e = cudaErrorNotSupported;
		switch (id) {
		case GEMM: e = bench_gemm(x.A, x.B, out, M, N, K, st); break;
		case RELU_GEMM: e = bench_relu_gemm(x.A, x.B, out, M, N, K, st); break;
		case GEMM_BIAS_RELU: e = bench_gemm_bias_relu(x.A, x.B, x.bias, out, M, N, K, st); break;
		case ADD_GEMM: e = bench_add_gemm(x.A, x.B, x.E, x.F, out, M, N, K, st); break;
		}
		return cuda_err(e);
	};
	run[1] = [&](int s, Out *out) -> std::string {
		return run_cublas(sets[s], id, out, M, N, K);
	};
	run[2] = [&](int s, Out *out) -> std::string {
		return run_cublaslt(sets[s], plan, s, id, out, M, K);
	};
	run[3] = [&](int s, Out *out) -> std::string {	// GEMM+bias+ReLU only
		return run_cublas_1pw(sets[s], out, M, N, K);
	};

	// One checked run of variant v on set 0 into Ochk (poisoned first).
	// Returns "" and the output, or what went wrong. A fault is fatal.
	auto checked = [&](int v, std::vector<OutBits> &out) -> std::string {
		poison(Ochk, mn);
		std::string e = run[v](0, Ochk);
		cudaError_t l = cudaGetLastError();
		cudaError_t s = cudaStreamSynchronize(st);
		if (s != cudaSuccess) {	// a fault: the context is lost; record, stop
			for (int w = 0; w < nv; ++w)
				if (!*row[w].status)
					set_status(row[w], "error", w == v ?
						std::string("fault: ") + cudaGetErrorName(s) :
						std::string("not run: ") + vname[v] + " faulted");
			emit();
			fatal((std::string(vname[v]) + " " + idiom_name(id)).c_str(),
				cudaGetErrorString(s));
		}
		if (e.empty() && l != cudaSuccess)
			e = std::string("launch error ") + cudaGetErrorName(l);
		if (e.empty())
			out = to_host<OutBits>(Ochk, mn);
		return e;
	};

	bool ready[4] = {false, false, false, false};
	std::vector<OutBits> ref, out;
	std::vector<Sample> smp = fp64_samples(id, M, N, K, sets[0], mix(seed + 7));

	// The reference R first, checked against the fp64 samples; then the
	// others against those samples and all of R's output.
	const int order[4] = {R, R == 1 ? 2 : 1, 3, 0};
	for (int v : order) {
		if (v >= nv)
			continue;
		if (v == 2 && !lt_ok) {
			set_status(row[2], "error", plan.err);
			continue;
		}
		if (v == 1 && !dt::has_gemm_ex) {
			set_status(row[1], "unsupported", std::string("cublasGemmEx takes no ") +
				dt::name + " (the " + dt::name + " baseline is cuBLASLt)");
			continue;
		}
		if (v == 0) {
			const Kernel &k = kernels[id];
			if (k.status != "ok") {
				set_status(row[0], k.status.c_str(), k.note);
				continue;
			}
			if (!launcher_linked(id)) {
				set_status(row[0], "error", "the manifest says ok, but no launcher is linked");
				continue;
			}
		}
		std::string e = checked(v, out);
		if (v == 0 && e == "cudaErrorInvalidValue") {
			set_status(row[0], "unsupported",
				"the launcher refused the size (cudaErrorInvalidValue)");
			continue;
		}
		if (!e.compare(0, kUnsupported.size(), kUnsupported)) {
			set_status(row[v], "unsupported", e.substr(kUnsupported.size()));
			continue;
		}
		if (!e.empty()) {
			set_status(row[v], "error", e);
			continue;
		}
		bench_cmp cs = check_samples(out, N, smp);
		if (!cs.ok || v == R) {
			row[v].rel_err = cs.rel_l2;
			row[v].max_err = cs.max_err;
			if (!cs.ok)
				set_status(row[v], "fail", fmt_cmp("against fp64 samples", cs));
			else {
				ready[v] = true;
				ref.swap(out);
			}
			continue;
		}
		if (!ready[R]) {
			set_status(row[v], "error", std::string("no checked ") + vname[R] +
				" result to compare with");
			continue;
		}
		bench_cmp c = dt::compare(out.data(), ref.data(), mn);
		row[v].rel_err = c.rel_l2;
		row[v].max_err = c.max_err;
		if (c.ok) ready[v] = true;
		else set_status(row[v], "fail", fmt_cmp((std::string("against ") + vname[R]).c_str(), c));
	}
	out.clear();

	// ---- timing, then each timed variant checked once more
	const double flop = (id == ADD_GEMM ? 4.0 : 2.0) * (double)M * (double)N * (double)K;
	double ms[4];
	int rounds = 0;
	std::string terr[4];
	time_all(run, ready, nv, sets, ms, &rounds, terr);
	cudaError_t l = cudaGetLastError();
	for (int v = 0; v < nv; ++v) {
		if (!ready[v])
			continue;
		row[v].nsets = nsets;
		row[v].reps = rounds;
		std::string err = terr[v];
		if (err.empty() && l != cudaSuccess)
			err = std::string("launch error ") + cudaGetErrorName(l);
		if (err.empty())
			err = checked(v, out);
		if (!err.empty()) {
			set_status(row[v], "error", "while timing: " + err);
			continue;
		}
		bench_cmp c = v == R ? check_samples(out, N, smp) :
			dt::compare(out.data(), ref.data(), mn);
		if (!c.ok) {
			set_status(row[v], "fail", v == R ?
				fmt_cmp("after timing, against fp64 samples", c) :
				fmt_cmp((std::string("after timing, against ") + vname[R]).c_str(), c));
			continue;
		}
		set_status(row[v], "ok", "");
		row[v].ms = ms[v];
		row[v].tflops = flop / (ms[v] * 1e-3) / 1e12;
	}
	for (int v = 0; v < nv; ++v)
		if (!strcmp(row[v].status, "ok")) {
			row[v].speedup_cublas = row[1].ms / row[v].ms;
			row[v].speedup_cublaslt = row[2].ms / row[v].ms;
		}

	emit();
	for (void *p : allocs)
		CK(cudaFree(p));
}
