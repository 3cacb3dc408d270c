package stageio

import (
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
)

func TestParseIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		specs []string
		want  []int32
		err   string
	}{
		{specs: nil, want: nil},
		{specs: []string{"3"}, want: []int32{3}},
		{specs: []string{"0-4"}, want: []int32{0, 1, 2, 3, 4}},
		{specs: []string{"7", "2-3", " 9 "}, want: []int32{7, 2, 3, 9}},
		{specs: []string{"5-5"}, want: []int32{5}},
		{specs: []string{"4-2"}, err: "range ends before it starts"},
		{specs: []string{"1-3", "2"}, err: "model id 2 selected twice"},
		{specs: []string{"x"}, err: `"x" is not a model id`},
		{specs: []string{"-1"}, err: `"" is not a model id`},
		{specs: []string{"1-"}, err: `"" is not a model id`},
		{specs: []string{"3000000000"}, err: "is not a model id"},
	}
	for _, tt := range tests {
		got, err := ParseIDs(tt.specs)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseIDs(%q) error = %v, want one containing %q", tt.specs, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseIDs(%q) = %v, %v, want %v", tt.specs, got, err, tt.want)
		}
	}
}

func TestSelectModels(t *testing.T) {
	t.Parallel()
	models := []Model{{ID: 0}, {ID: 1}, {ID: 2}}
	got, err := SelectModels(models, []int32{2, 0}, "dir")
	if err != nil || len(got) != 2 || got[0].ID != 2 || got[1].ID != 0 {
		t.Fatalf("SelectModels(2, 0) = %v, %v", got, err)
	}
	if got, err := SelectModels(models, nil, "dir"); err != nil || len(got) != 3 {
		t.Fatalf("SelectModels(nil) = %v, %v, want all 3", got, err)
	}
	_, err = SelectModels(models, []int32{5}, "dir")
	if err == nil || !strings.Contains(err.Error(), "dir/"+formats.ModelInfoFile) || !strings.Contains(err.Error(), "model_id 5") {
		t.Fatalf("SelectModels(5) error = %v, want one naming the file and the id", err)
	}
}
