"""Every lesson text and every page's explanatory strings, with the claims about numbers they make and
the test that holds each claim (one test a claim, named after it).

A key is a file; its value lists (quote, test): the quote is copied from the file (whitespace aside),
the test is "module::function". ``tests/claims/test_registry.py`` checks that every lesson text under
assets/ and every page module is listed, that every quote is still in its file (so an edited sentence
must be checked again), and that every test exists. A file whose text states no fact about numbers
is listed with NO_CLAIM and the reason.

A new lesson is not done until its texts are here.
"""

from __future__ import annotations

NO_CLAIM = "no claim about numbers"
F = "tests.claims.test_first_lessons_claims"
L = "tests.claims.test_learn_claims"
R = "tests.claims.test_real_model_claims"
P = "tests.claims.test_parts_claims"
C = "tests.claims.test_cross_claims"
H = "tests.test_heads_off_and_cache"

CLAIMS: dict[str, list[tuple[str, str]] | str] = {
    # --- the walkthrough ---------------------------------------------------------------------------
    "assets/walkthrough/00_intro.md": [
        ("Each heatmap has its numbers in a table beside or under it",
         "tests.test_pages::test_default_render_shows_all_steps_with_the_engine_numbers"),
    ],
    "assets/walkthrough/01_tokens.md": [
        ("a word that appears twice gets the same id twice", f"{F}::test_a_word_that_appears_twice_gets_the_same_id"),
        ("(and the same colour below)", "tests.test_figures::test_tokens_figure_colours_repeats_alike"),
    ],
    "assets/walkthrough/01_tokens_pretrained.md": [
        ("(30,522 entries for MiniLM, 49,152 for SmolLM2), and a token that appears twice has the same id twice",
         f"{R}::test_the_vocabularies_have_the_sizes_step_one_says"),
        ("These are the model's own tokens", f"{R}::test_a_real_heads_step_one_shows_the_models_own_tokenizer_text"),
    ],
    "assets/walkthrough/02_embeddings.md": [
        ("the vectors are random but fixed by the seed: the same word always gets the same row, wherever it stands",
         f"{F}::test_the_same_word_gets_the_same_row_wherever_it_stands_and_positions_tell_copies_apart"),
        ("so that the same word at different positions gets a different row",
         f"{F}::test_the_same_word_gets_the_same_row_wherever_it_stands_and_positions_tell_copies_apart"),
    ],
    "assets/walkthrough/02_embeddings_pretrained.md": [
        ("In MiniLM's first layer that is the word-piece embeddings plus learned position embeddings (and BERT's "
         "segment embedding, the same for every token here), normalised; in SmolLM2 it is the hidden state after "
         "the layer's RMSNorm. Every later layer gets what the layers before it made of the tokens.",
         f"{R}::test_x_is_what_the_layer_receives_as_step_two_writes_it"),
    ],
    "assets/walkthrough/03_projections.md": [
        ("entries drawn from a normal distribution with mean 0 and variance 1/d_model",
         f"{F}::test_seeded_random_projections_have_mean_zero_and_variance_one_over_d_model"),
        ("(when d_k = d_model) leaves each embedding as it is", "tests.test_pages::test_identity_preset_makes_q_equal_x"),
    ],
    "assets/walkthrough/03_projections_pretrained.md": [
        ("stored as 4-bit numbers and turned back into float32 here",
         f"{R}::test_smollm2s_weights_are_the_quantization_the_page_names"),
        ("the head's own columns of the layer's projections (MiniLM: 384 → 32",
         "tests.test_pretrained::test_minilm_head_trace_has_hugging_faces_q_k_v"),
        ("SmolLM2: 576 → 64", "tests.test_pretrained::test_smollm2_head_trace_has_hugging_faces_q_k_v_in_the_true_head_order"),
    ],
    "assets/walkthrough/03_projections_trained.md": [
        ("At step 0 they are the random start (entries with mean 0 and variance 1/d_model); every training step "
         "moves them a little by gradient descent.", f"{L}::test_step_zero_is_the_random_start_with_variance_one_over_d_model"),
        ("Whether they have got to where they solve the task is what the held-out accuracy above says.",
         f"{L}::test_step_three_of_a_trained_head_says_nothing_of_solving_at_step_zero_or_unlearned"),
    ],
    "assets/walkthrough/04_qkv.md": [
        ("one query, one key and one value **per token**", "tests.test_engine::test_trace_steps_agree_with_each_other_and_with_sdpa"),
    ],
    "assets/walkthrough/04b_rope.md": [
        ("Pair by pair, a query at position i and a key at position j then meet at the angle (i − j)·θ_c",
         f"{R}::test_rope_pairs_meet_at_the_angle_i_minus_j_times_theta_c"),
        ("their dot product depends on how far apart they are, not on where they stand",
         "tests.test_pretrained::test_rope_makes_a_score_depend_on_the_distance_only"),
    ],
    "assets/walkthrough/05_scores.md": [
        ("row i holds query i's score against every token", "tests.test_engine::test_sdpa_matches_naive_loops"),
    ],
    "assets/walkthrough/06_scale.md": [
        ("the variance of q·k is d_k", "tests.test_multihead_and_scaling::test_dot_product_variance_grows_like_d_k"),
        ("Dividing by √d_k brings the spread back to about 1",
         f"{F}::test_a_typical_score_is_about_root_d_k_and_scaling_brings_it_back_to_about_one"),
    ],
    "assets/walkthrough/07_softmax.md": [
        ("each row adds up to exactly 1", "tests.test_properties::test_softmax_rows_sum_to_one_even_for_huge_scores"),
        ("a masked key has z = −∞ and gets weight exactly 0",
         f"{F}::test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one"),
        ("the colours run from 0 up to the largest weight in the matrix",
         "tests.test_figures::test_weights_use_viridis_from_zero_to_the_largest_weight_and_signed_numbers_rdbu_centred_on_0"),
    ],
    "assets/walkthrough/08_output.md": [
        ("the scaled vectors add up to the output row", f"{F}::test_the_output_row_is_the_sum_of_the_scaled_value_vectors"),
    ],
    "viz/steps.py": [
        ("query i attends only to tokens 1 … i, and every row still sums to 1",
         f"{F}::test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one"),
        ("“identity” is the {trace.d_model} × {trace.d_k} matrix with ones on its diagonal",
         "tests.test_engine::test_identity_projections"),
        ("blue is positive, red is negative, white is zero",
         "tests.test_figures::test_weights_use_viridis_from_zero_to_the_largest_weight_and_signed_numbers_rdbu_centred_on_0"),
    ],
    "viz/exports.py": [
        ("every number below was computed for this sentence",
         "tests.test_handout::test_every_table_shows_the_engines_numbers_at_the_pages_decimals"),
        ("entries drawn from N(0, 1/d_model), fixed by the seed",
         f"{F}::test_seeded_random_projections_have_mean_zero_and_variance_one_over_d_model"),
        ("ones on the diagonal: Q = K = V = X when d_k = d_model",
         "tests.test_engine::test_trace_identity_preset_scores_are_raw_embedding_dot_products"),
        ("a token attends only to itself and the tokens before it",
         f"{F}::test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one"),
        ("divides the scaled scores; 1 is standard attention",
         "tests.test_multihead_and_scaling::test_temperature_divides_the_scaled_scores"),
        ("Each cell of X is the sum of the cells at the same place in E and P.",
         "tests.test_pages::test_positional_encodings_show_e_p_and_x"),
        ("the scaled scores of later tokens are set to −∞, so the softmax gives them weight 0",
         f"{F}::test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one"),
    ],
    "ui/walkthrough.py": [
        ("the model stores 1/{group} as many keys and values",
         "tests.test_pretrained::test_smollm2_head_trace_has_hugging_faces_q_k_v_in_the_true_head_order"),
        ("Inputs to a sum or a quotient carry as many decimals as it takes for them to give the shown result",
         "tests.test_figures::test_written_out_sums_add_up_to_the_shown_results"),
        ("Each cell of X is the sum of the cells at the same place in E and P; point at one for the sum written out.",
         "tests.test_tooltips::test_every_tooltip_of_every_step_adds_up_at_the_precision_it_shows"),
        ("factor = L.factor(trace.scale)", "tests.claims.test_truth_claims::test_the_scale_factor_is_written_with_equals_only_when_it_is_exact"),
        ("the scaled scores of later tokens are set to −∞, so the softmax gives them weight 0",
         f"{F}::test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one"),
    ],
    "lessons/walkthrough.py": [
        ("Seeded random: entries ~ N(0, 1/d_model)", f"{F}::test_seeded_random_projections_have_mean_zero_and_variance_one_over_d_model"),
    ],
    # --- multi-head --------------------------------------------------------------------------------
    "assets/multihead/00_intro.md": [
        ("so h heads cost about as much as one big head",
         f"{F}::test_h_heads_of_d_model_over_h_cost_about_as_much_as_one_big_head"),
    ],
    "assets/multihead/01_path.md": [
        ("the h outputs are concatenated back to d_model columns",
         "tests.test_properties::test_multi_head_splits_and_concatenates_losslessly"),
    ],
    "lessons/multihead.py": [
        ("Each head gets d_k = d_model / h dimensions, so h must divide d_model.",
         "tests.test_multihead_and_scaling::test_multi_head_bad_head_count_explains_itself"),
        ("W_O is [d_model × d_model], seeded random like the other matrices (entries ~ N(0, 1/d_model)).",
         "tests.test_multihead_and_scaling::test_w_o_is_seeded_and_scaled"),
    ],
    # --- √d_k --------------------------------------------------------------------------------------
    "assets/scaling/00_intro.md": [
        ("**the variance of q·k is d_k**", "tests.test_multihead_and_scaling::test_dot_product_variance_grows_like_d_k"),
        ("a typical score is about ±8", f"{F}::test_a_typical_score_is_about_root_d_k_and_scaling_brings_it_back_to_about_one"),
    ],
    "assets/scaling/01_saturation.md": [
        ("with a standard deviation of about 20 (as q·k has at d_k = 400), the largest one usually wins almost "
         "everything", f"{F}::test_with_a_spread_of_twenty_the_largest_score_usually_takes_almost_everything"),
        ("but in a growing share of rows as d_k grows, the rows whose softmax saturated",
         "tests.test_multihead_and_scaling::test_over_many_rows_the_unscaled_softmax_saturates_as_d_k_grows"),
        ("With the scores divided by √d_k the weights stay spread out for every d_k, and the gradient stays alive",
         f"{F}::test_with_scaling_the_weights_stay_spread_and_the_gradient_alive_for_every_d_k"),
        ("One random row can go either way, so the page counts many",
         "tests.test_multihead_and_scaling::test_the_example_row_is_called_untypical_exactly_when_it_goes_against_the_medians"),
    ],
    "assets/scaling/02_temperature.md": [
        ("(shared equally when several keys tie for the best score)",
         "tests.test_phonebook::test_as_temperature_goes_to_zero_soft_tends_to_the_tied_average"),
        ("Scaling by 1/√d_k is a fixed temperature of √d_k",
         "tests.test_multihead_and_scaling::test_temperature_divides_the_scaled_scores"),
    ],
    "lessons/scaling.py": [
        ("this lesson is about the marked steps", "tests.test_model_map::test_the_scaling_lessons_map_is_the_traces_its_page_draws_and_marks_the_scale_and_softmax"),
        ("Close to d_k: the variance grows like d_k.", "tests.test_multihead_and_scaling::test_dot_product_variance_grows_like_d_k"),
        ("Close to 1 for every d_k.", f"{F}::test_a_typical_score_is_about_root_d_k_and_scaling_brings_it_back_to_about_one"),
    ],
    "viz/scaling.py": [
        ("This row happens to be untypical",
         "tests.test_multihead_and_scaling::test_the_example_row_is_called_untypical_exactly_when_it_goes_against_the_medians"),
    ],
    # --- phonebook ---------------------------------------------------------------------------------
    "assets/phonebook/00_intro.md": NO_CLAIM + ": the analogy is set up; the numbers come in the next texts",
    "assets/phonebook/01_hard_soft.md": [
        ("(“Jan” → #ja, jan, an#)", f"{F}::test_a_name_is_the_counts_of_its_trigrams_and_jindrich_shares_five_with_jindrich"),
        ("It is 1 for the same spelling, above 0 exactly when two names share a triple",
         "tests.test_phonebook::test_scores_depend_only_on_shared_trigrams"),
        ("(five shared triples)", f"{F}::test_a_name_is_the_counts_of_its_trigrams_and_jindrich_shares_five_with_jindrich"),
    ],
    "assets/phonebook/02_temperature.md": [
        ("they share the weight equally, and the soft lookup tends to the average of their numbers instead",
         "tests.test_phonebook::test_as_temperature_goes_to_zero_soft_tends_to_the_tied_average"),
        ("As T grows, the answer blends more and more numbers", f"{F}::test_as_t_grows_the_answer_blends_more_numbers"),
    ],
    "assets/phonebook/03_back_to_attention.md": NO_CLAIM + ": the roles of q, k and v, as in step 4",
    "viz/phonebook.py": [
        ("so every score is 0 and all", "tests.test_phonebook::test_a_query_that_shares_nothing_ties_every_name"),
        ("The hard lookup takes the first of them in the book",
         "tests.test_phonebook::test_a_duplicated_name_ties_and_the_message_says_what_happens"),
        ("to {abs(decimals)} decimals: multiply each by its name's digits and add",
         "tests.claims.test_truth_claims::test_the_phonebooks_soft_answer_adds_up_from_the_weights_in_its_table"),
    ],
    "lessons/phonebook.py": NO_CLAIM + ": its sentences are viz.phonebook's",
    # --- similar is not relevant -------------------------------------------------------------------
    "assets/relevance/00_intro.md": NO_CLAIM + ": the question the lesson answers",
    "assets/relevance/01_similarity.md": [
        ("another token can only beat ‖x_i‖² if its vector is **longer**",
         f"{P}::test_a_tokens_score_with_itself_is_its_squared_length_and_only_a_longer_vector_beats_it"),
        ("That is why tokens here often attend mostly **to themselves**",
         f"{F}::test_tokens_often_attend_mostly_to_themselves_with_raw_embeddings_and_the_page_counts_them"),
        ("is exactly 1 on the diagonal and at most 1 everywhere else",
         f"{F}::test_cosine_similarity_is_one_on_the_diagonal_and_at_most_one_elsewhere"),
    ],
    "assets/relevance/02_relevance.md": [
        ("so that the query moves towards that key and away from the keys it was already looking at",
         "tests.test_relevance::test_attend_to_raises_the_target_weight"),
    ],
    "assets/relevance/03_geometry.md": [
        ("q·k = ‖q‖‖k‖cos θ", f"{F}::test_a_dot_product_is_the_product_of_lengths_and_the_cosine"),
    ],
    "viz/relevance.py": [
        ("rows the largest weight is on the token itself",
         "tests.test_relevance::test_similarity_summary_counts_what_it_says_and_names_every_longer_winner"),
        ("a direction in which k_{t + 1}'s score rises above every other key's score",
         "tests.test_relevance::test_a_key_leads_exactly_when_no_mix_of_the_other_keys_equals_it"),
        ("far enough that “{target}”'s scaled score gains at least the strength on each of them",
         "tests.test_relevance::test_a_key_leads_exactly_when_no_mix_of_the_other_keys_equals_it"),
        ("No query at all can make “{query}” attend most to “{target}” here.",
         "tests.test_relevance::test_a_key_leads_exactly_when_no_mix_of_the_other_keys_equals_it"),
        ("weights that add up to 1", "tests.test_relevance::test_a_key_leads_exactly_when_no_mix_of_the_other_keys_equals_it"),
        ("and stops where it peaks", "tests.test_relevance::test_peaked_is_said_only_when_a_stronger_push_would_not_help"),
    ],
    "lessons/relevance.py": [
        ("this lesson is about the marked steps", "tests.test_model_map::test_the_relevance_lessons_map_has_the_experiments_d_k_and_marks_w_q_w_k_scores_and_alpha"),
        ("a stronger push would lower it", "tests.test_relevance::test_peaked_is_said_only_when_a_stronger_push_would_not_help"),
        ("A stronger push, further along the same direction, raises the weight further.",
         "tests.test_relevance::test_a_stronger_push_never_lowers_the_target_weight_in_any_mode"),
    ],
    # --- from its parts ----------------------------------------------------------------------------
    "assets/parts/00_intro.md": NO_CLAIM + ": how the page is laid out",
    "assets/parts/01_similarity.md": [
        ("another token can beat it only with a longer vector (Cauchy–Schwarz)",
         f"{P}::test_a_tokens_score_with_itself_is_its_squared_length_and_only_a_longer_vector_beats_it"),
        ("so a token often looks mostly at itself. Often, not always",
         f"{P}::test_often_not_always_a_token_looks_mostly_at_itself"),
        ("the count on your sentence is below", f"{P}::test_the_page_counts_the_rows_that_look_at_themselves_on_the_learners_sentence"),
    ],
    "assets/parts/02_values.md": [
        ("The weights α are exactly the stage before's", f"{P}::test_values_leave_alpha_exactly_as_it_was"),
    ],
    "assets/parts/03_relevance.md": [
        ("nothing makes it the largest in its row", f"{P}::test_with_projections_the_diagonal_has_no_built_in_advantage"),
        ("here with d_k = d_model and the same seed", f"{P}::test_stage_three_is_the_walkthrough_at_d_k_equal_to_d_model"),
    ],
    "ui/links.py": [
        ("The link keeps every setting that changes the numbers, the open step and the chosen query or head.",
         "tests.test_links::test_a_link_reopens_what_any_changes_of_the_controls_showed"),
        ("It leaves out how the page is displayed (open panels, the lines view) and your answers.",
         "tests.test_links::test_every_control_a_page_draws_is_in_its_link_or_named_as_display_only"),
        ("the link holds the sentence the lesson shows.",
         "tests.test_links::test_a_sentence_the_lesson_cannot_show_is_not_what_the_link_holds"),
        ("has {info.layers} layers, on", "tests.test_model_pages_issue43::test_a_page_of_layers_the_model_lacks_is_named_and_left_out_of_the_link"),
    ],
    "viz/exercises.py": [
        ("The softmax keeps the order of a row (e^z grows with z), so the",
         "tests.test_classroom::test_every_option_of_every_question_is_judged_as_the_engine_says"),
        ("The table's scores are rounded to two decimals, so an answer from",
         "tests.test_classroom::test_every_option_of_every_question_is_judged_as_the_engine_says"),
        ("The first token may attend only to itself, so α_1,1 = 1 and every other weight is 0",
         f"{F}::test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one"),
        ("\" the same vector, so \"", "tests.test_classroom::test_a_one_token_sentence_accepts_every_option_that_is_its_own_value_vector"),
        ("so its value vector gets the largest share", "tests.test_classroom::test_every_option_of_every_question_is_judged_as_the_engine_says"),
        ("an exact tie", "tests.test_classroom::test_the_issue_tie_is_accepted_and_explained"),
        ("Each head gets d_k = d_model / h", "tests.test_multihead_and_scaling::test_multi_head_bad_head_count_explains_itself"),
        ("back to d_model columns", "tests.test_properties::test_multi_head_splits_and_concatenates_losslessly"),
    ],
    "ui/exercises.py": [
        ("Predict from the numbers above, before {where} shows the answer",
         "tests.test_classroom::test_each_question_is_asked_at_a_step_whose_numbers_answer_it_and_revealed_later"),
    ],
    "viz/tables.py": [
        ("Every row of α sums to 1.", f"{F}::test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one"),
        ("The two-decimal cells don't always show it: those of",
         "tests.claims.test_truth_claims::test_row_sums_name_exactly_the_rows_whose_two_decimal_cells_do_not_add_up_to_one"),
        ("So do the two-decimal cells of every row here.",
         "tests.claims.test_truth_claims::test_row_sums_name_exactly_the_rows_whose_two_decimal_cells_do_not_add_up_to_one"),
        ("Add up a column of terms and you get its Σ row",
         "tests.test_tooltips::test_the_sum_table_of_step_8_adds_up_column_by_column_as_shown"),
        ("its terms give it only approximately (≈)",
         "tests.test_tooltips::test_the_sum_table_of_step_8_adds_up_column_by_column_as_shown"),
    ],
    "viz/parts.py": [
        ("is {'exactly the same' if same_alpha else 'different'} as in stage 1", f"{P}::test_values_leave_alpha_exactly_as_it_was"),
        ("({way} here)", f"{P}::test_with_projections_the_diagonal_has_no_built_in_advantage"),
        ("the output's entries moved by up to {A.text(moved)} (the largest difference between the two output tables)",
         "tests.claims.test_truth_claims::test_stage_two_says_the_largest_difference_between_the_two_output_tables_as_shown"),
    ],
    "lessons/parts.py": [
        ("this lesson is about the marked steps", "tests.test_model_map::test_the_parts_lessons_map_marks_its_stages_ingredient"),
        ("W_Q = W_K = W_V = I, so Q = K = V = X", "tests.test_lessons_issue3::test_each_stage_adds_one_ingredient_and_shows_the_engine_numbers"),
        ("\"Measured on your sentence: \" + similarity_summary(now)",
         f"{P}::test_the_page_counts_the_rows_that_look_at_themselves_on_the_learners_sentence"),
    ],
    # --- cross-attention ---------------------------------------------------------------------------
    "assets/cross/00_intro.md": [
        ("it is **i × i′**, not square unless the two sentences have the same length, and every row still sums to 1",
         "tests.test_lessons_issue3::test_cross_attention_is_softmax_of_target_queries_against_source_keys"),
    ],
    "assets/cross/01_contrast.md": [
        ("with the seeded random preset, type the same text in both boxes and the numbers become the walkthrough's at "
         "the same seed and d_k, with the walkthrough's causal mask off",
         f"{C}::test_the_same_text_in_both_boxes_gives_the_walkthroughs_numbers_with_the_random_preset_and_no_mask"),
    ],
    "viz/cross.py": [
        ("with a scaled score of {ALIGN_Z:g}, and the keys of the other constructed pairs with 0",
         f"{C}::test_each_constructed_pair_meets_at_the_stated_score_and_other_pairs_keys_at_zero"),
        ("The table pairs {paired} with a source word, each with one of its own",
         f"{C}::test_the_table_pairs_each_word_once_with_the_kth_copy_of_its_translation"),
        ("directions fit ({which} is the limit)", f"{C}::test_at_most_min_d_model_d_k_directions_fit_and_the_limit_is_named"),
        ("No source word to pair with in the table for", f"{C}::test_words_without_a_pair_are_named_and_only_they"),
        ("The table's {len(BILINGUAL)} English → French pairs",
         f"{C}::test_the_tables_pairs_listed_on_the_page_are_the_pairs_the_alignment_builds"),
        ("so they share one direction and each copy looks", f"{C}::test_copies_of_a_word_share_a_direction_without_positional_encodings"),
        ("constructed pairs have their row's largest weight on", f"{C}::test_the_measured_share_of_pairs_whose_row_peaks_on_the_pair_is_counted"),
    ],
    "lessons/cross.py": [
        ("C.alignment_text(trace)", f"{C}::test_the_aligned_page_names_its_counts_and_limit"),
    ],
    # --- watch a head learn ------------------------------------------------------------------------
    "assets/learn/00_intro.md": [
        ("so on its own it can only learn to give the most common answer",
         f"{L}::test_the_bias_alone_can_only_give_the_most_common_answer"),
        ("checked against finite differences and against PyTorch",
         "tests.test_training::test_gradients_match_central_differences"),
    ],
    "assets/learn/01_alpha.md": [
        ("the page measures on this sequence how much weight the rows put on the key that holds their answer",
         f"{L}::test_the_weight_on_the_needed_key_is_read_from_the_heads_alpha"),
    ],
    "assets/learn/02_form.md": [
        ("$z_{ij} = q_i \\cdot k_j / \\sqrt{d_k} = x_i \\, B \\, x_j^\\top$",
         "tests.test_training::test_a_heads_trace_is_the_models_own_head"),
        ("Softmax ignores anything added to a whole row", "tests.test_training::test_centring_rows_keeps_what_softmax_sees"),
    ],
    "lessons/learn.py": [
        ("Three of the held-out sequences (never trained on)", f"{L}::test_the_examples_shown_are_held_out_sequences"),
        ("distinct sequences, none of them in any training batch", f"{L}::test_held_out_sequences_are_never_trained_on"),
        ("The grey line is the best held-out accuracy of a strategy that needs no search",
         f"{L}::test_partly_learned_needs_ten_points_above_every_strategy_that_needs_no_search"),
    ],
    "viz/training.py": [
        ("more steps will likely take it further", f"{L}::test_more_steps_likely_take_a_steadily_falling_loss_further"),
        ("which a smaller learning rate usually calms", f"{L}::test_a_smaller_learning_rate_usually_calms_a_run_whose_loss_rose"),
        ("a smaller one on the menu trains without blowing up", f"{L}::test_a_smaller_rate_on_the_menu_trains_without_blowing_up"),
        ("The held-out loss was still falling steadily at the end", f"{L}::test_two_noisy_points_are_not_read_as_still_falling"),
        ("of their weight on {run.task.looks_at}, the key that holds the answer",
         f"{L}::test_the_weight_on_the_needed_key_is_read_from_the_heads_alpha"),
        ("each score has four parts", f"{L}::test_the_four_parts_of_the_scores_add_up_to_the_heads_scaled_scores"),
        ("**Learned** on sequences it never trained on", f"{L}::test_held_out_sequences_are_never_trained_on"),
    ],
    # --- a real model ------------------------------------------------------------------------------
    "assets/real_model/00_intro.md": [
        ("its own weights as its package ships them", f"{R}::test_smollm2s_weights_are_the_quantization_the_page_names"),
    ],
    "assets/real_model/01_tokens_minilm.md": [
        ("the whole word becomes [UNK], not just that character", f"{R}::test_minilm_writes_unk_for_the_whole_word_not_the_character"),
        ('it lower-cases the text and strips accents ("Jindřich" → "jindrich")', f"{R}::test_minilm_is_uncased_and_strips_accents"),
    ],
    "assets/real_model/01_tokens_smollm2.md": [
        ("A space usually belongs to the token after it", f"{R}::test_a_space_before_a_word_belongs_to_the_words_token"),
        ("Every digit is a token of its own, so a space before a digit is one too",
         f"{R}::test_every_digit_is_a_token_and_a_space_before_a_digit_is_one_too"),
        ("shown as ⟨F0 9F⟩", f"{R}::test_an_emoji_may_be_cut_into_its_bytes_and_a_space_before_it_stays_visible"),
        ("each token seeing itself and the tokens before it", f"{R}::test_the_decoder_sees_itself_and_the_tokens_before"),
    ],
    "assets/real_model/02_heads_off_smollm2.md": [
        ("the table puts the five likeliest next tokens with every head on beside the five with those heads off",
         "tests.test_heads_off_and_cache::test_switching_off_the_induction_heads_shows_the_next_tokens_before_and_after"),
        ("a probability of 0.64 at the median, and it is the likeliest next token on 21 of the 24",
         f"{R}::test_induction_prompts_give_the_next_word_0_64_at_the_median_and_the_top_on_21"),
        ("lowers it on each of the 24, to 0.29 at the median",
         f"{R}::test_the_demo_induction_head_off_lowers_it_on_each_prompt_to_0_29_at_the_median"),
        ("takes it below 0.06 on every one, and below 0.001 at the median",
         f"{R}::test_the_five_induction_heads_off_take_it_below_0_06_on_every_prompt"),
        ("(a mean weight of at least 0.5 on the token after the earlier occurrence: layer 18, heads 4, 5 and 6, "
         "and layer 19, heads 7 and 8)",
         f"{R}::test_the_five_induction_heads_are_those_with_a_mean_induction_weight_of_at_least_half"),
        ("Five other heads picked at random (for each prompt, in ten separate draws) leave it between 0.37 and 0.59 at the median",
         f"{R}::test_five_other_heads_at_random_leave_it_between_0_37_and_0_59_at_the_median"),
    ],
    "assets/real_model/02_heads_off_minilm.md": [
        ("(their cosine similarity: 1 is unchanged)", f"{R}::test_minilm_layers_before_the_first_head_off_run_as_they_did"),
        ("The layers before the first head switched off run exactly as they did, so the map starts at that head's layer",
         f"{R}::test_minilm_layers_before_the_first_head_off_run_as_they_did"),
    ],
    "assets/real_model/04_sampling.md": [
        ("Below 1 the likeliest token gets likelier still", "tests.test_sampling::test_a_lower_temperature_makes_the_likeliest_token_likelier"),
        ("above 1 the distribution flattens toward the unlikely tokens",
         "tests.test_sampling::test_a_lower_temperature_makes_the_likeliest_token_likelier"),
        ("keeps only the k tokens with the largest logits", "tests.test_sampling::test_the_steps_equal_their_definitions_written_as_loops"),
        ("keeps the fewest likeliest tokens whose probabilities add up to more than p",
         "tests.test_sampling::test_what_is_sampled_from_is_a_distribution_over_the_likeliest_tokens"),
        ("divided by their sum, so that they add up to 1 again",
         "tests.test_sampling::test_what_is_sampled_from_is_a_distribution_over_the_likeliest_tokens"),
        ("These are Hugging Face's steps, in its order, and this page's numbers equal its code's",
         "tests.test_sampling::test_the_distribution_sampled_from_equals_hugging_faces_logits_processors"),
    ],
    "viz/sampling.py": [
        ("of the probability at T", "tests.test_sampling::test_the_page_shows_the_engines_sampling_of_the_learners_sentence"),
        ("none is cut: every token can be drawn", "tests.test_sampling::test_the_page_shows_the_engines_sampling_of_the_learners_sentence"),
        ("u falls in", "tests.test_sampling::test_the_draw_lands_on_the_kept_token_whose_slice_holds_u"),
        ("(tied logits are kept together)", "tests.test_sampling::test_the_distribution_sampled_from_equals_hugging_faces_logits_processors"),
    ],
    "ui/bridge.py": [
        ("This head is the most focused of the model on your sentence",
         "tests.test_bridge::test_the_head_picked_is_the_most_focused_of_those_that_are_not_sinks"),
        ("heads that park most of their weight on the special tokens were passed over",
         "tests.test_bridge::test_the_head_picked_is_the_most_focused_of_those_that_are_not_sinks"),
        ("The trained head's rows are more focused", "tests.test_bridge::test_the_bridge_opens_the_same_sentence_and_step_on_the_most_focused_head_and_back"),
        ("1 = every key weighted equally, 0 = one key takes all",
         "tests.test_bridge::test_uniform_rows_share_one_one_hot_rows_share_zero_and_single_key_rows_are_left_out"),
        ("no query sees two keys", "tests.test_bridge::test_uniform_rows_share_one_one_hot_rows_share_zero_and_single_key_rows_are_left_out"),
    ],
    "ui/sampling.py": [
        ("likeliest next tokens, likeliest first", "tests.test_sampling::test_the_page_shows_the_engines_sampling_of_the_learners_sentence"),
    ],
    "assets/real_model/03_scan.md": [
        ("a negative drop means the model is surer of that token without the head",
         f"{R}::test_a_scan_drop_is_the_ablated_runs_drop_and_0_69_halves_the_probability"),
        ("A drop of 0.69 (ln 2) halves its probability",
         f"{R}::test_a_scan_drop_is_the_ablated_runs_drop_and_0_69_halves_the_probability"),
        ("the nine heads run as one batch from that layer on: the layers before it are not computed again",
         f"{R}::test_a_scan_computes_no_layer_before_the_scanned_one_again"),
        ("measures how much the log-probability of the likeliest next token drops",
         f"{R}::test_the_scans_ranking_finds_an_induction_head_on_each_induction_prompt"),
    ],
    # --- writing with a key/value cache ------------------------------------------------------------
    "assets/generate/00_intro.md": [
        ("picks the likeliest next token (greedy decoding, as here)",
         "tests.test_heads_off_and_cache::test_the_cache_gives_what_recomputing_the_whole_sequence_gives"),
        ("a token's key and value in each layer never change once it has been read",
         "tests.test_heads_off_and_cache::test_the_cache_gives_what_recomputing_the_whole_sequence_gives"),
        ("each new token computes only its own query, key and value, adds its key and value to the cache",
         "tests.test_heads_off_and_cache::test_a_steps_trace_is_one_query_against_every_cached_key_by_naive_loops"),
    ],
    "assets/generate/01_cache.md": [
        ("The prompt's pass fills the cache with one row per prompt token",
         "tests.test_heads_off_and_cache::test_the_cache_holds_each_read_tokens_rotated_key_and_value"),
        ("each token read after it adds one row",
         "tests.test_heads_off_and_cache::test_the_cache_holds_each_read_tokens_rotated_key_and_value"),
        ("Its keys are stored after RoPE, each turned by the angle of its own position",
         "tests.test_heads_off_and_cache::test_the_cache_holds_each_read_tokens_rotated_key_and_value"),
        ("The last token written is not in it", "tests.test_heads_off_and_cache::test_the_cache_holds_each_read_tokens_rotated_key_and_value"),
    ],
    "assets/generate/02_step.md": [
        ("there is one query; K and V are the cache with the new key and value as their last row",
         "tests.test_heads_off_and_cache::test_a_steps_trace_is_one_query_against_every_cached_key_by_naive_loops"),
    ],
    "assets/generate/03_same.md": [
        ("The cache changes how much is computed, not what",
         "tests.test_heads_off_and_cache::test_the_cache_gives_what_recomputing_the_whole_sequence_gives"),
    ],
    "assets/walkthrough/02_embeddings_cached.md": [
        ("X is **one row**: the hidden state of the token being read",
         "tests.test_heads_off_and_cache::test_the_step_reads_the_hidden_state_the_layer_receives"),
    ],
    "assets/walkthrough/04_qkv_cached.md": [
        ("the rows above them were stored when the earlier tokens were read",
         "tests.test_heads_off_and_cache::test_the_cache_holds_each_read_tokens_rotated_key_and_value"),
        ("Its k and v are appended to the cache as the last rows of K and V",
         "tests.test_heads_off_and_cache::test_the_cache_holds_each_read_tokens_rotated_key_and_value"),
    ],
    "assets/walkthrough/04b_rope_cached.md": [
        ("V is not rotated",
         "tests.test_heads_off_and_cache::test_the_cache_holds_each_read_tokens_rotated_key_and_value"),
        ("The cached keys were rotated when they were stored, each by its own position",
         "tests.test_heads_off_and_cache::test_the_cache_holds_each_read_tokens_rotated_key_and_value"),
    ],
    "assets/walkthrough/05_scores_cached.md": [
        ("the new token's query against every key in the cache and its own",
         "tests.test_heads_off_and_cache::test_a_steps_trace_is_one_query_against_every_cached_key_by_naive_loops"),
        ("No mask is needed", "tests.test_heads_off_and_cache::test_a_steps_trace_is_one_query_against_every_cached_key_by_naive_loops"),
    ],
    "assets/walkthrough/08_output_cached.md": [
        ("the weighted sum of the value vectors, the cached ones and its own",
         "tests.test_heads_off_and_cache::test_a_steps_trace_is_one_query_against_every_cached_key_by_naive_loops"),
        ("the last layer's output at this token gives the next token's logits",
         "tests.test_heads_off_and_cache::test_the_cache_gives_what_recomputing_the_whole_sequence_gives"),
    ],
    "lessons/generate.py": [
        ("this text has cached steps ",
         "tests.test_model_pages_issue43::test_a_step_the_learner_picked_that_a_shorter_text_lacks_is_named_in_the_learners_words"),
        ("the model reads at most {MAX_MODEL_TOKENS} ", "tests.test_heads_off_and_cache::test_a_prompt_near_the_limit_writes_what_fits_and_one_token_has_no_step"),
        ("it wrote an end-of-text token", "tests.test_heads_off_and_cache::test_writing_stops_at_an_end_of_text_token"),
        ("counted from the weights' shapes", "tests.test_heads_off_and_cache::test_multiply_adds_grow_linearly_with_the_cache_and_quadratically_without"),
        ("Medians of three runs each, measured once on this server",
         "tests.test_heads_off_and_cache::test_a_step_is_timed_with_its_cache_filled_before_the_clock"),
        ("Query heads 1–3 read key/value head 1, 4–6 head 2, 7–9 head 3",
         "tests.test_pretrained::test_smollm2_head_trace_has_hugging_faces_q_k_v_in_the_true_head_order"),
    ],
    "viz/generation.py": [
        ("× as much: in grouped-query", "tests.test_heads_off_and_cache::test_the_lesson_shows_what_the_engine_writes_its_cache_and_one_step"),
        ("both ways do the same work", "tests.test_heads_off_and_cache::test_multiply_adds_grow_linearly_with_the_cache_and_quadratically_without"),
        ("Measured on your prompt: the largest difference between a logit",
         "tests.test_heads_off_and_cache::test_the_lesson_shows_what_the_engine_writes_its_cache_and_one_step"),
        ("With one token written there is no cached step", f"{H}::test_one_token_written_compares_nothing_it_did_not_compute"),
        ("rows after the first add up to", f"{H}::test_the_work_sentence_adds_up_the_tables_rows_as_shown"),
        ("multiply-adds whatever its position", f"{H}::test_how_the_work_grows_is_what_the_shapes_count"),
        ("for each key its queries read", f"{H}::test_how_the_work_grows_is_what_the_shapes_count"),
        ("that part added", f"{H}::test_how_the_work_grows_is_what_the_shapes_count"),
        ("more for each token read, and its query-key pairs", f"{H}::test_how_the_work_grows_is_what_the_shapes_count"),
        ("the scores of every pair of tokens, is", f"{H}::test_how_the_work_grows_is_what_the_shapes_count"),
        ("Both ways read all of the model's weights once a step", f"{H}::test_a_step_reads_every_weight_and_the_cache_its_rows"),
        ("a cached step reads its cache's rows besides", f"{H}::test_a_step_reads_every_weight_and_the_cache_its_rows"),
        ("the multiply-adds of a cached step in", f"{H}::test_the_time_sentence_names_the_length_from_which_a_whole_pass_takes_half_again_as_long"),
        ("on a whole pass takes at least {PAYS}", f"{H}::test_the_time_sentence_names_the_length_from_which_a_whole_pass_takes_half_again_as_long"),
    ],
    # --- class mode --------------------------------------------------------------------------------
    "lessons/classmode.py": NO_CLAIM + ": the page only dispatches to ui/classmode.py",
    "ui/training.py": NO_CLAIM + ": it trains beside the page; the words about a run are viz/training.py's, its "
                      "progress ui/background.py's",
    "ui/background.py": [
        ("of the work done", "tests.test_learn::test_a_trainings_progress_is_the_share_of_its_steps_trained"),
        ("waiting for another long computation on this server to finish",
         "tests.test_background::test_a_job_cancelled_before_the_worker_takes_it_never_runs"),
    ],
    "ui/classmode.py": [
        ("You can change it until your teacher closes the answers.",
         "tests.test_classmode_store::test_a_student_answers_once_and_a_change_of_mind_replaces_it_until_the_reveal"),
        ("You can change it until your teacher closes the answers.",
         "tests.test_classmode_store::test_the_teachers_switches_reach_the_poll_and_close_the_answers"),
        ("of {_students(joined)} answered", "tests.test_classmode_pages::test_a_question_from_the_lessons_sidebar_to_the_reveal_with_two_students"),
        ("The answers are hidden until your teacher shows them.",
         "tests.test_classmode_pages::test_the_projector_holds_no_key_and_shows_answers_only_when_the_teacher_does"),
        ("Your teacher has paused the class's screens.",
         "tests.test_classmode_pages::test_a_paused_class_shows_students_no_lesson_and_an_open_question_hides_it"),
        ("Built when you click: every answer so far, who did not answer, the right answers, each student's total.",
         "tests.test_classmode_pages::test_the_export_holds_the_latest_answers_and_stays_after_the_class_is_closed"),
        ("the answers stay for your export until the class is deleted, a day from now.",
         "tests.test_classmode_pages::test_the_export_holds_the_latest_answers_and_stays_after_the_class_is_closed"),
        ("This lesson has no questions to ask; the walkthrough and multi-head attention have.",
         "tests.test_classmode_pages::test_only_the_walkthrough_and_multihead_offer_questions_to_a_class"),
        ("its address is 127.0.0.1), so your students can't open the join link",
         "tests.test_classmode_pages::test_a_server_on_loopback_warns_that_students_cant_open_its_link"),
        ("Type a number from 0 to 1, such as 0.25 (or 0,25).",
         "tests.test_classmode_pages::test_number_answers_take_a_decimal_comma_and_only_what_an_alpha_can_be"),
        ("Not answered yet:", "tests.test_classmode_pages::test_a_question_from_the_lessons_sidebar_to_the_reveal_with_two_students"),
    ],
    "viz/classmode.py": [
        ("Right: {share}", "tests.test_classmode_pages::test_a_question_from_the_lessons_sidebar_to_the_reveal_with_two_students"),
        ("median {median_text(values)}",
         "tests.test_classmode_pages::test_a_guess_in_the_range_rounded_scores_give_counts_and_the_spread_hides_it_until_the_reveal"),
    ],
    "static/identity.js": NO_CLAIM + ": it keeps the browser's identity in localStorage and reports it",
    "static/arrival.js": NO_CLAIM + ": it brings a navigation's heading into view (tests/browser/test_arrival_browser.py)",
    "static/countdown.js": NO_CLAIM + ": a question's timer, counting down (tests/js/countdown.test.mjs)",
    "viz/pretrained.py": [
        ("the attention and feed-forward matrices as 4-bit numbers", f"{R}::test_smollm2s_weights_are_the_quantization_the_page_names"),
        ("each a whole word with a character the vocabulary lacks", f"{R}::test_minilm_writes_unk_for_the_whole_word_not_the_character"),
        ("belong to the token after them", f"{R}::test_a_space_before_a_word_belongs_to_the_words_token"),
        ("it does its job here", f"{R}::test_the_reading_on_the_learners_sentence_says_whether_the_head_does_its_job"),
        ("its output α·V is set to zero before W_O, at every position",
         "tests.test_heads_off_and_cache::test_smollm2_with_heads_off_matches_hugging_face"),
        ("each row's other weights are scaled to add up to 1 again",
         "tests.test_heads_off_and_cache::test_hiding_the_first_token_renormalises_each_row_over_the_rest"),
        ("the decoder's first row sees only the first token",
         "tests.test_heads_off_and_cache::test_a_decoders_first_row_has_nothing_left_when_the_sink_is_hidden"),
        ("the last layer's output, averaged over the tokens",
         "tests.test_heads_off_and_cache::test_minilm_with_heads_off_matches_hugging_face"),
        ("The number: this head's mean weight on the first token, over every row but the first",
         "tests.test_view::test_a_tiles_number_is_its_mean_weight_on_the_first_token"),
        ("(½·Σ|Δα| a row, averaged)", "tests.test_heads_off_and_cache::test_how_far_alpha_moved_is_a_distance_between_0_and_1"),
        ("lowers its log-probability most, by", "tests.claims.test_truth_claims::test_the_scans_sentence_writes_p_before_and_after_as_the_drop_gives_them"),
        ("heads scanned, {helped} lower it by more than {threshold}",
         "tests.claims.test_truth_claims::test_the_scans_sentence_writes_p_before_and_after_as_the_drop_gives_them"),
        ("below {entry.at_least}: **it does not do this job on your sentence.**",
         "tests.claims.test_truth_claims::test_a_measure_beside_its_threshold_shows_on_its_own_side"),
    ],
    "attention/pretrained/gallery.py": [
        ("every row but the first puts nearly all its weight (at least 0.95) one place to the left",
         f"{R}::test_each_gallery_job_holds_on_as_many_family_sentences_as_it_says"),
        ("the first row, [CLS], has nothing to its left and looks at itself",
         f"{R}::test_the_previous_token_heads_first_row_looks_at_itself"),
        ("on most of them over half the rows have their largest weight there",
         f"{R}::test_the_next_token_head_is_often_sharp_and_always_less_sharp_than_the_previous_token_head"),
        ("is on a noun before it", f"{R}::test_the_pronoun_head_looks_from_it_at_a_noun_before_it_on_each_sentence"),
        ("But not reliably the noun “it” refers to", f"{R}::test_the_pronoun_head_does_not_follow_what_it_refers_to"),
        ("Most of this model's heads do this much of the time", f"{R}::test_most_of_the_decoders_heads_are_sinks_on_most_sentences"),
    ],
    "static/view.js": [
        ("s = q·k term by term, z = s/√d_k, α = e^(z−m)/Σ", "tests.test_view::test_a_scores_provenance_is_the_traces_q_and_k_and_adds_up"),
    ],
    "viz/model_map.py": [
        ("Shapes come from the trace and the model's sizes, never from constants",
         "tests.test_model_map::test_the_walkthroughs_map_has_the_traces_shapes_and_its_steps_in_order"),
        ("(our forward computes it; not drawn as steps)",
         "tests.test_pretrained::test_smollm2_matches_hugging_face_on_every_head_and_the_next_token"),
        ("sharing K, V in threes", "tests.test_pretrained::test_smollm2_head_trace_has_hugging_faces_q_k_v_in_the_true_head_order"),
        ("Sentence embedding", "tests.test_heads_off_and_cache::test_minilm_with_heads_off_matches_hugging_face"),
        ("The phonebook is one query of an attention head", "tests.test_phonebook::test_the_soft_lookup_is_one_query_of_an_attention_head"),
        ("Q = X_t·W_Q; K, V from X_s", "tests.test_lessons_issue3::test_cross_attention_is_softmax_of_target_queries_against_source_keys"),
        ("The rest of this model (trained with it)", "tests.test_training::test_forward_matches_a_naive_loop"),
        ("before training (step 0, on the first held-out sequence)", "tests.test_training::test_the_head_before_training_is_the_runs_step_0_replayed_from_its_seed"),
    ],
    "ui/model_map.py": NO_CLAIM + ": it draws viz/model_map.py's data and opens the step chosen",
    "static/dom.js": NO_CLAIM + ": one DOM helper",
    "static/grid.js": NO_CLAIM + ": it draws the chart and a grid over its cells; what a cell says is tooltip.js's",
    "static/table.js": NO_CLAIM + ": it writes the numbers it is given, as tooltip.js formats them",
    "static/hover.js": NO_CLAIM + ": it places the tooltip and lights panels; the tooltip's words are tooltip.js's",
    "static/player.js": [
        ("the step's table holds the same numbers", "tests.browser.test_player_browser::test_a_played_step_sends_nothing_and_ends_on_the_tables_numbers"),
        ("The weights of “${data.queries[i]}” add up to 1", "tests.test_properties::test_softmax_rows_sum_to_one_even_for_huge_scores"),
    ],
    "ui/player.py": [
        ("Runs in your browser, on the numbers above", "tests.browser.test_player_browser::test_a_played_step_sends_nothing_and_ends_on_the_tables_numbers"),
    ],
    "viz/player.py": NO_CLAIM + ": the player's data, the trace's own numbers; its titles name the stages",
    "static/map.js": NO_CLAIM + ": it draws the map's parts and shapes it is given (viz/model_map.py, tested there)",
    "static/tooltip.js": [
        ("largest scaled score; its weights sum to 1 before rounding", "tests.test_view::test_a_weights_provenance_divides_the_traces_own_exponentials"),
        ("the causal mask hides key", f"{F}::test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one"),
        ("a sum, product or quotient carries `dec`, the decimals its inputs are written with in each cell",
         "tests.test_tooltips::test_every_tooltip_of_every_step_adds_up_at_the_precision_it_shows"),
        ("one term of column ${j}; the last row adds the column up.", "tests.test_tooltips::test_the_sum_table_of_step_8_adds_up_column_by_column_as_shown"),
    ],
    "lessons/real_model.py": [
        ("Blue: the drop is positive, the head helped that token;",
         "tests.test_heads_off_and_cache::test_the_scans_colours_are_the_ones_its_caption_names"),
        ("each an α of {shape} on one colour scale", "tests.test_pretrained::test_hiding_the_sink_on_one_token_shows_the_heads_whole"),
        ("With one token, nothing is left once the first is hidden",
         "tests.test_pretrained::test_hiding_the_sink_on_one_token_shows_the_heads_whole"),
        ("put most of their weight on the first token here", "tests.test_pretrained::test_many_decoder_heads_are_attention_sinks"),
        ("P.QUANTIZED", f"{R}::test_smollm2s_weights_are_the_quantization_the_page_names"),
    ],
}

# Modules whose strings explain numbers to the learner: each must be a key above.
PAGE_MODULES = ("lessons/*.py", "static/*.js", "ui/walkthrough.py", "viz/steps.py", "viz/exports.py", "viz/training.py", "viz/cross.py", "viz/pretrained.py",
                "viz/generation.py", "viz/classmode.py", "ui/classmode.py", "ui/training.py", "ui/background.py", "ui/sampling.py", "viz/sampling.py", "ui/bridge.py", "viz/model_map.py", "ui/model_map.py", "ui/player.py", "viz/player.py",
                "viz/parts.py", "viz/relevance.py", "viz/tables.py", "viz/exercises.py", "ui/exercises.py", "ui/links.py", "viz/scaling.py", "viz/phonebook.py",
                "attention/pretrained/gallery.py")
